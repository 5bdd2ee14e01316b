import type { UpstreamFailure } from '../routing/classify-upstream-failure.js';
import { isErrorDocument } from './is-error-document.js';
import { readUpstreamErrorReason } from './read-upstream-error-reason.js';
import { redactSecret } from './redact-secret.js';

/**
 * Pure: a text channel's 2xx error document as the channel's failure (a 502 naming the upstream's message,
 * the channel key redacted), tried elsewhere as a converted route's unreadable answer is; undefined for
 * anything else. A chained gateway may answer the client's own bad request so: unless its fields say the
 * channel's key or account failed, it is not held against the channel (no cooldown).
 */
export function errorDocumentFailure(json: unknown, key: string): UpstreamFailure | undefined {
  if (!isErrorDocument(json)) return undefined;
  const message = (json as { error: { message?: unknown } }).error.message;
  const told = typeof message === 'string' ? message.slice(0, 500) : '';
  const reason = readUpstreamErrorReason(200, json, told);
  return {
    kind: 'status',
    status: 502,
    message: redactSecret(`the upstream answered 2xx with an error document${told === '' ? '' : `: ${told}`}`, key),
    ...(reason === undefined ? { mayBeTheRequests: true as const } : { reason }),
  };
}
