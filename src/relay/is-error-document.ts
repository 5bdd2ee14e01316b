import type { UpstreamFailure } from '../routing/classify-upstream-failure.js';
import { redactSecret } from './redact-secret.js';

/**
 * The fields an answer delivers its result in: OpenAI-style endpoints (`data`, `choices`, `results`,
 * Responses `output`), Anthropic Messages (`content`), Gemini (`candidates`).
 */
const resultFields = ['data', 'choices', 'results', 'output', 'content', 'candidates'] as const;

/**
 * Pure: whether a 2xx answer is an error document — `{"error": {…}}` with none of the fields an answer
 * delivers its result in (Anthropic's `{"type": "error", "error": {…}}` and Gemini's `{"error": {code,
 * message, status}}` are such). Some upstreams (gateways chained as channels) answer a failure so: it
 * delivered nothing and costs nothing.
 */
export function isErrorDocument(json: unknown): boolean {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return false;
  const document = json as Record<string, unknown>;
  const error = document.error;
  if (error === null || typeof error !== 'object') return false;
  return resultFields.every((field) => document[field] === undefined || document[field] === null);
}

/**
 * Pure: a text channel's 2xx error document as the channel's failure (a 502 naming the upstream's message,
 * the channel key redacted), tried elsewhere as a converted route's unreadable answer is; undefined for
 * anything else.
 */
export function errorDocumentFailure(json: unknown, key: string): UpstreamFailure | undefined {
  if (!isErrorDocument(json)) return undefined;
  const message = (json as { error: { message?: unknown } }).error.message;
  const told = typeof message === 'string' ? `: ${message.slice(0, 500)}` : '';
  return { kind: 'status', status: 502, message: redactSecret(`the upstream answered 2xx with an error document${told}`, key) };
}

/**
 * {@link errorDocumentFailure} of a whole answer's bytes, for a relay that reads usage without parsing the
 * answer (Chat): parsed only when the bytes hold an `"error"` key at all (a native search).
 */
export function errorDocumentFailureIn(answer: Buffer, key: string): UpstreamFailure | undefined {
  if (!answer.includes('"error"')) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(answer.toString('utf8'));
  } catch {
    return undefined;
  }
  return errorDocumentFailure(json, key);
}
