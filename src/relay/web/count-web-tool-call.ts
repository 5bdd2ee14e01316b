import type { UpstreamFailure } from '../../routing/classify-upstream-failure.js';
import type { UsageMeter } from '../usage-meter.js';
import { isJsonWhitespace, openBrace } from '../../streaming/json-char-codes.js';

/**
 * UniFuncs answers its failures (a bad URL, a fetch that failed, its own balance or rate limit) with HTTP
 * 200 and a JSON envelope whose `code` is not 0 (protocols.md §12.1): such a call delivered nothing and
 * costs nothing. Any other answer — `code` 0, or the plain Markdown or text a `format` asks for (whatever
 * the page says, even JSON with a `code`) — is one call.
 */
export function countFailedWebToolCall(answer: Buffer, meter: UsageMeter, contentType: string): void {
  meter.deliveredCalls = webToolCallFailed(answer, contentType) ? 0 : 1;
}

/** Pure: whether the answer is a UniFuncs JSON envelope (`application/json`) with a non-zero `code`. */
export function webToolCallFailed(answer: Buffer, contentType: string): boolean {
  const code = envelopeOf(answer, contentType)?.code;
  return typeof code === 'number' && code !== 0;
}

/**
 * Pure: a UniFuncs refusal that is about the channel, not the request (protocols.md §12.1), as the failure
 * it amounts to — so it is tried on another channel, and a dead key or account is set aside as a 401 or a
 * 402 would be: −20021 (invalid or expired key) and −20014 (account disabled) as 401, −20025 (insufficient
 * balance) as 402, −20011 (no permission) as 403, −20033 (rate limited) as 429, −20001 (server error) as
 * 500. Undefined for any other answer: a refusal of the request itself (a bad URL, a fetch that failed)
 * reaches the client as UniFuncs sent it, at no charge.
 */
export function webToolChannelFailure(answer: Buffer, contentType: string): UpstreamFailure | undefined {
  const envelope = envelopeOf(answer, contentType);
  const status = typeof envelope?.code === 'number' ? channelStatuses.get(envelope.code) : undefined;
  if (envelope === undefined || status === undefined) return undefined;
  const message = typeof envelope.message === 'string' && envelope.message !== '' ? envelope.message : (defaultMessages.get(status) ?? 'refused');
  const failure = { kind: 'status' as const, status, message: `The web tool upstream refused the call (code ${String(envelope.code)}: ${message.slice(0, 200)}).` };
  return status === 402 ? { ...failure, reason: 'account_dead' } : failure;
}

const channelStatuses = new Map<number, number>([
  [-20001, 500],
  [-20011, 403],
  [-20014, 401],
  [-20021, 401],
  [-20025, 402],
  [-20033, 429],
]);
const defaultMessages = new Map<number, string>([
  [401, 'invalid key or disabled account'],
  [402, 'insufficient balance'],
  [403, 'no permission'],
  [429, 'rate limited'],
  [500, 'server error'],
]);

/** The JSON envelope an `application/json` answer is, when it is an object; undefined otherwise. */
function envelopeOf(answer: Buffer, contentType: string): Record<string, unknown> | undefined {
  if (!/^application\/json\b/i.test(contentType.trim())) return undefined;
  let index = 0;
  while (isJsonWhitespace(answer[index])) index += 1;
  if (answer[index] !== openBrace) return undefined;
  try {
    const document: unknown = JSON.parse(answer.toString('utf8'));
    return document !== null && typeof document === 'object' ? (document as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
