import type { UsageMeter } from '../usage-meter.js';

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
  if (!/^application\/json\b/i.test(contentType.trim())) return false;
  let index = 0;
  while (index < answer.length && (answer[index] === 0x20 || answer[index] === 0x0a || answer[index] === 0x0d || answer[index] === 0x09)) index += 1;
  if (answer[index] !== 0x7b) return false;
  let document: unknown;
  try {
    document = JSON.parse(answer.toString('utf8'));
  } catch {
    return false;
  }
  const code = (document as { code?: unknown }).code;
  return typeof code === 'number' && code !== 0;
}
