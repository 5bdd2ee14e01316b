import { isRecord } from '../../convert/shared/is-record.js';
import { groundingBilledPerPrompt } from '../../convert/gemini/count-grounding-searches.js';
import type { TextStyleName } from '../text-style.js';

/** Searches reserved for a search tool that names no cap of its own. */
export const defaultReservedWebSearches = 5;

/**
 * Pure: how many web searches a request lets its upstream run, for the reservation: Anthropic's
 * `web_search_…` tool by its `max_uses` (else {@link defaultReservedWebSearches}), OpenAI Responses'
 * `web_search…` tool by the request's `max_tool_calls` (else the same default), Gemini's Google Search
 * grounding tool (no cap exists) one grounded prompt for a Gemini 2.x or older model, else the default;
 * a Chat request's `web_search_options` (OpenAI's search-preview models) one: OpenAI bills each such call
 * one search, and a Chat answer does not count it, so this is also what it is billed (run-text-relay.ts);
 * 0 without a search tool. The charge is what the upstream reports; this only makes sure a balance can pay
 * for the usual case.
 */
export function declaredWebSearches(style: TextStyleName, body: Record<string, unknown>, model = ''): number {
  if (style === 'gemini') return !declaresGoogleSearch(body) ? 0 : groundingBilledPerPrompt(model) ? 1 : defaultReservedWebSearches;
  if (style === 'openai-chat') return isRecord(body.web_search_options) ? 1 : 0;
  if (style !== 'anthropic-messages' && style !== 'openai-responses') return 0;
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
  const search = tools.find((tool) => isRecord(tool) && typeof tool.type === 'string' && tool.type.startsWith('web_search'));
  if (!isRecord(search)) return 0;
  const cap = style === 'anthropic-messages' ? search.max_uses : body.max_tool_calls;
  return typeof cap === 'number' && Number.isSafeInteger(cap) && cap >= 0 ? cap : defaultReservedWebSearches;
}

const googleSearchTools = ['googleSearch', 'google_search', 'googleSearchRetrieval', 'google_search_retrieval'];

/** Whether a Gemini body offers the model Google Search grounding. */
function declaresGoogleSearch(body: Record<string, unknown>): boolean {
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
  return tools.some((tool) => isRecord(tool) && googleSearchTools.some((name) => tool[name] !== undefined && tool[name] !== null));
}
