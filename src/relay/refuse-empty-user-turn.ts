import type { CanonicalRequest } from '../canonical/canonical-request.js';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * A user turn with nothing to send — empty, or every part of it of a kind the conversion drops (an unknown
 * Anthropic block, a Gemini part with no field another vendor takes) — cannot go to a channel of another
 * style: sent empty, the upstream refuses it after the call (Gemini "contents is not specified", Anthropic
 * "all messages must have non-empty content") or answers a request the client did not make, and is paid for
 * it. Every vendor refuses an empty user turn itself. A 400 naming the turn, before anything is sent; a
 * same-style channel is passed the client's body and judges it.
 */
export function refuseEmptyUserTurn(request: CanonicalRequest, warnings: readonly string[]): void {
  const index = request.messages.findIndex((message) => message.role === 'user' && message.content.length === 0);
  if (index === -1) return;
  const turn = request.messages[index];
  // The client's own path (`contents.N` for a Gemini client): the canonical index is off by every system
  // message and split-out tool result before the turn.
  const path = (turn?.role === 'user' ? turn.clientPath : undefined) ?? `messages.${index}`;
  const dropped = warnings.filter((warning) => warning.includes('dropped')).slice(0, 3);
  const why = dropped.length === 0 ? 'it is empty' : `it is empty once what cannot be carried is dropped: ${dropped.join('; ')}`;
  throw new GatewayError('invalid_request', `${path}: nothing in this user message can be sent to this model (${why}).`, { param: path });
}
