import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import type { CanonicalResponse } from '../canonical/canonical-response.js';
import type { UpstreamFailure } from '../routing/classify-upstream-failure.js';
import { mapInBandErrorStatus } from './map-in-band-error-status.js';
import { readUpstreamErrorReason } from './read-upstream-error-reason.js';
import { redactSecret } from './redact-secret.js';

/**
 * Pure: what an upstream stream collected for a non-streaming client amounts to when the upstream failed
 * in-band (an `error` part, e.g. Gemini's `{"error":…}` chunk): a failure that fails over as a reset
 * does, since nothing reached the client yet — never a whole answer with the partial text. Its message,
 * for the client and the log, names the upstream's error (with the channel key masked, as in error
 * bodies). An error whose code says the request is at fault (mapInBandErrorStatus) is instead the
 * status failure the upstream's 400 would be, with the upstream's message: it goes back to the client.
 * Undefined when the stream carried no error.
 */
export function readInBandFailure(parts: readonly CanonicalStreamPart[], key: string): UpstreamFailure | undefined {
  const error = parts.find((part) => part.type === 'error');
  if (error === undefined) return undefined;
  return failedAnswer(error.message, error.code, key);
}

/**
 * Pure: the same for a whole answer that says it failed (a Responses object with `status: "failed"`,
 * sent with HTTP 200): a failure, not a 200 with the partial text — its `error.code` read as an error
 * part's is. Undefined for any other answer.
 */
export function readFailedAnswer(response: CanonicalResponse, body: unknown, key: string): UpstreamFailure | undefined {
  if (response.finishReason.unified !== 'error') return undefined;
  const error = body !== null && typeof body === 'object' ? (body as { error?: { message?: unknown; code?: unknown } }).error : undefined;
  const message = typeof error?.message === 'string' ? error.message : 'the upstream reported a failed answer';
  return failedAnswer(message, typeof error?.code === 'string' ? error.code : undefined, key);
}

function failedAnswer(upstreamMessage: string, code: string | undefined, key: string): UpstreamFailure {
  // The request's own fault, by its code: what the upstream's 400 would be (back to the client, no cooldown),
  // unless it is an account out of credit in a request error's clothes (Anthropic's), failed over as that is.
  const status = mapInBandErrorStatus(code);
  if (status !== undefined) {
    const refusal = redactSecret(upstreamMessage, key);
    const reason = readUpstreamErrorReason(status, { error: { type: code } }, refusal);
    return reason === undefined ? { kind: 'status', status, message: refusal } : { kind: 'status', status, message: refusal, reason };
  }
  const message = `The upstream failed mid-answer: ${redactSecret(upstreamMessage, key)}`;
  return code === undefined ? { kind: 'connection', message } : { kind: 'connection', message, detail: `(${code})` };
}
