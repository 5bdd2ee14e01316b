import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import type { UpstreamFailure } from '../routing/classify-upstream-failure.js';
import { redactSecret } from './redact-secret.js';

/**
 * Pure: what an upstream stream collected for a non-streaming client amounts to when the upstream failed
 * in-band (an `error` part, e.g. Gemini's `{"error":…}` chunk): a failure that fails over as a reset
 * does, since nothing reached the client yet — never a whole answer with the partial text. Its message,
 * for the client and the log, names the upstream's error (with the channel key masked, as in error
 * bodies). Undefined when the stream carried no error.
 */
export function readInBandFailure(parts: readonly CanonicalStreamPart[], key: string): UpstreamFailure | undefined {
  const error = parts.find((part) => part.type === 'error');
  if (error === undefined) return undefined;
  const message = `The upstream failed mid-answer: ${redactSecret(error.message, key)}`;
  return error.code === undefined ? { kind: 'connection', message } : { kind: 'connection', message, detail: `(${error.code})` };
}
