import { GatewayError } from '../../../errors/gateway-error.js';
import type { PageRequest } from '../../../storage/paging.js';
import { parseIntegerQuery } from './parse-integer-query.js';

const defaultPageSize = 20;
const largestPageSize = 100;

/** `p` (new-api's name) or `page`, 1-based; `page_size` defaults to 20 and is capped at 100, as new-api does. */
export function parsePageRequest(query: unknown): PageRequest {
  const page = parseIntegerQuery(query, 'p') ?? parseIntegerQuery(query, 'page') ?? 1;
  const pageSize = parseIntegerQuery(query, 'page_size') ?? defaultPageSize;
  if (page < 1) throw new GatewayError('invalid_request', 'Query parameter p (page) starts at 1.', { param: 'p' });
  if (pageSize < 1) throw new GatewayError('invalid_request', 'Query parameter page_size must be at least 1.', { param: 'page_size' });
  return { page, pageSize: Math.min(pageSize, largestPageSize) };
}
