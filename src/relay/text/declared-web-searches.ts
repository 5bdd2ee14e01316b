import { isRecord } from '../../convert/shared/is-record.js';
import type { TextStyleName } from '../text-style.js';

/** Searches reserved for a search tool that names no cap of its own. */
export const defaultReservedWebSearches = 5;

/**
 * Pure: how many web searches a request lets its upstream run, for the reservation: Anthropic's
 * `web_search_…` tool by its `max_uses` (else {@link defaultReservedWebSearches}), OpenAI Responses'
 * `web_search…` tool by the request's `max_tool_calls` (else the same default); 0 without a search tool.
 * The charge is what the upstream reports; this only makes sure a balance can pay for the usual case.
 */
export function declaredWebSearches(style: TextStyleName, body: Record<string, unknown>): number {
  if (style !== 'anthropic-messages' && style !== 'openai-responses') return 0;
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
  const search = tools.find((tool) => isRecord(tool) && typeof tool.type === 'string' && tool.type.startsWith('web_search'));
  if (!isRecord(search)) return 0;
  const cap = style === 'anthropic-messages' ? search.max_uses : body.max_tool_calls;
  return typeof cap === 'number' && Number.isSafeInteger(cap) && cap >= 0 ? cap : defaultReservedWebSearches;
}
