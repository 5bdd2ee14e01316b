/**
 * A fresh per-answer nonce for the ids the gateway makes up for tool calls an upstream sent without one:
 * 8 letters and digits. An upstream answer id alone does not keep such ids apart across the turns of a
 * conversation (a compatible Chat server may give every answer the same id; Gemini may give none), and a
 * history replaying two answers needs distinct ids (Anthropic refuses repeated tool_use ids).
 */
export function newCallIdNonce(): string {
  return Math.random().toString(36).slice(2, 10).padEnd(8, '0');
}
