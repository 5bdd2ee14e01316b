import type { ErrorKind } from './read-error-kind.js';

/** One error kind in each client style's own words. */
export interface ErrorWords {
  /** OpenAI's `error.type` and `error.code` (Chat, whole answers of every OpenAI route). */
  openai: { type: string; code: string | null };
  /** The Responses `response.error.code`, a closed enum (`ResponseErrorCode` in OpenAI's OpenAPI). */
  openaiResponses: 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt';
  /** Anthropic's `error.type` (protocols.md §6.3). */
  anthropic: string;
  /** Google's `error.status` and the HTTP code it goes with (protocols.md §7). */
  gemini: { status: string; code: number };
}

/**
 * The words each style uses for each kind, so a client reads only its own vendor's vocabulary. OpenAI
 * sends `code: null` where it has no code of its own for the case (a plain bad request, a server fault);
 * the type still says which.
 */
const wordsByKind = {
  invalid_request: {
    openai: { type: 'invalid_request_error', code: null },
    openaiResponses: 'invalid_prompt',
    anthropic: 'invalid_request_error',
    gemini: { status: 'INVALID_ARGUMENT', code: 400 },
  },
  request_too_large: {
    openai: { type: 'invalid_request_error', code: null },
    openaiResponses: 'invalid_prompt',
    anthropic: 'request_too_large',
    gemini: { status: 'INVALID_ARGUMENT', code: 400 },
  },
  // The upstream refused the channel's key, or its permission: the gateway's own credentials, not the
  // client's, whose key the gateway accepted. Told as the server fault it is — never the style's words for a
  // refused key (`invalid_api_key`, `authentication_error`, `UNAUTHENTICATED`), which the client's SDK raises
  // as its own key being wrong (the whole answer is a 502: relay-envelope.ts).
  authentication: {
    openai: { type: 'server_error', code: null },
    openaiResponses: 'server_error',
    anthropic: 'api_error',
    gemini: { status: 'INTERNAL', code: 500 },
  },
  permission: {
    openai: { type: 'server_error', code: null },
    openaiResponses: 'server_error',
    anthropic: 'api_error',
    gemini: { status: 'INTERNAL', code: 500 },
  },
  not_found: {
    openai: { type: 'invalid_request_error', code: null },
    openaiResponses: 'server_error',
    anthropic: 'not_found_error',
    gemini: { status: 'NOT_FOUND', code: 404 },
  },
  rate_limit: {
    openai: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
    openaiResponses: 'rate_limit_exceeded',
    anthropic: 'rate_limit_error',
    gemini: { status: 'RESOURCE_EXHAUSTED', code: 429 },
  },
  // The upstream's account (the channel's) is out of credit: the gateway's balance, not the client's, whose
  // own the gateway admitted. A server fault — never the style's quota words (`insufficient_quota`,
  // `billing_error`), which the client reads as its own balance run out, the gateway's own 402 (the whole
  // answer is a 502: relay-envelope.ts).
  quota: {
    openai: { type: 'server_error', code: null },
    openaiResponses: 'server_error',
    anthropic: 'api_error',
    gemini: { status: 'INTERNAL', code: 500 },
  },
  overloaded: {
    openai: { type: 'server_error', code: 'server_is_overloaded' },
    openaiResponses: 'server_error',
    anthropic: 'overloaded_error',
    gemini: { status: 'UNAVAILABLE', code: 503 },
  },
  timeout: {
    openai: { type: 'server_error', code: null },
    openaiResponses: 'server_error',
    anthropic: 'timeout_error',
    gemini: { status: 'DEADLINE_EXCEEDED', code: 504 },
  },
  // The gateway got no answer (a 502): no style has a word of its own for it, so its server fault's.
  // (Google's UNAVAILABLE is its overload, 503: the HTTP status already tells a client to retry.)
  connection: {
    openai: { type: 'server_error', code: null },
    openaiResponses: 'server_error',
    anthropic: 'api_error',
    gemini: { status: 'INTERNAL', code: 502 },
  },
  server: {
    openai: { type: 'server_error', code: null },
    openaiResponses: 'server_error',
    anthropic: 'api_error',
    gemini: { status: 'INTERNAL', code: 500 },
  },
} as const satisfies Record<ErrorKind, ErrorWords>;

/** Pure: an error kind in every client style's words. */
export function mapErrorKind(kind: ErrorKind): ErrorWords {
  return wordsByKind[kind];
}
