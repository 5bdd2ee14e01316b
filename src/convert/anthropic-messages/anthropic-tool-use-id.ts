import { shortHash } from '../shared/short-hash.js';

const accepted = /^[A-Za-z0-9_-]+$/;

/**
 * Pure: a tool-call id as Anthropic takes it (`tool_use.id` and `tool_result.tool_use_id` must match
 * `^[a-zA-Z0-9_-]+$`, else 400). Ids of other vendors and clients often do not (`functions.get_weather:0`
 * from Kimi and MCP clients): those get their other characters replaced with `_` and a hash of the whole id
 * appended, so the mapping is the same for a call and its result without any state, and two ids that differ
 * only in the replaced characters stay apart. Ids Anthropic takes are sent as they are.
 */
export function anthropicToolUseId(id: string): string {
  if (accepted.test(id)) return id;
  return `${id.replace(/[^A-Za-z0-9_-]/g, '_')}_${shortHash(id)}`;
}
