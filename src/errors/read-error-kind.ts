/**
 * What an upstream error is, whatever vendor said it — or what the gateway's own failure to get an answer
 * was (`connection`, `timeout`) —: the one vocabulary every client style's error words are mapped from
 * (map-error-kind.ts), so that no client reads another vendor's codes.
 */
export type ErrorKind =
  | 'invalid_request'
  | 'request_too_large'
  /** The upstream refused the channel's key: the gateway's credentials, never the client's. */
  | 'authentication'
  /** The upstream refused the channel's key the permission: the gateway's credentials too. */
  | 'permission'
  | 'not_found'
  | 'rate_limit'
  /** The upstream's account (the channel's) is out of credit: the gateway's balance, never the client's. */
  | 'quota'
  | 'overloaded'
  | 'timeout'
  /** No answer to be had: the upstream could not be reached, or its answer broke off or was unreadable. */
  | 'connection'
  | 'server';

/**
 * OpenAI's error codes (protocols.md §11, the Responses `ResponseErrorCode` enum): what an OpenAI client may
 * be handed as they are. Not `invalid_api_key` nor `insufficient_quota`: an upstream's says the channel's key
 * is refused or its account out of credit, which an OpenAI client would take for its own (map-error-kind.ts).
 */
export const openaiErrorCodes: ReadonlyMap<string, ErrorKind> = new Map<string, ErrorKind>([
  ['rate_limit_exceeded', 'rate_limit'],
  ['slow_down', 'rate_limit'],
  ['model_not_found', 'not_found'],
  ['server_is_overloaded', 'overloaded'],
  ['server_error', 'server'],
  ['vector_store_timeout', 'timeout'],
  ...[
    'context_length_exceeded', 'invalid_prompt', 'content_policy_violation', 'bio_policy', 'data_residency_mismatch', 'invalid_image',
    'invalid_image_format', 'invalid_base64_image', 'invalid_image_url', 'image_too_large', 'image_too_small', 'image_parse_error',
    'image_content_policy_violation', 'invalid_image_mode', 'image_file_too_large', 'unsupported_image_media_type', 'empty_image_file',
    'failed_to_download_image', 'image_file_not_found',
  ].map((code): [string, ErrorKind] => [code, 'invalid_request']),
]);

/** The gateway's own codes for an upstream stream it could not read to its end (an interruption, a malformed chunk). */
export const gatewayStreamCodes: readonly string[] = ['stream_interrupted', 'invalid_chunk'];

/**
 * Each vendor's error words (the field a client cannot write: Anthropic's `error.type`, OpenAI's
 * `error.code`, or its `error.type` when the code is null, Google's `error.status`), as kinds.
 * Sources: protocols.md §6.3 (Anthropic), §7 (Google), §11 (OpenAI).
 */
const kindByVendorCode: ReadonlyMap<string, ErrorKind> = new Map<string, ErrorKind>([
  // Anthropic's types (OpenAI's types share some of these names, with the same meaning)
  ['invalid_request_error', 'invalid_request'],
  ['request_too_large', 'request_too_large'],
  ['authentication_error', 'authentication'],
  ['billing_error', 'quota'],
  ['permission_error', 'permission'],
  ['not_found_error', 'not_found'],
  ['rate_limit_error', 'rate_limit'],
  ['api_error', 'server'],
  ['timeout_error', 'timeout'],
  ['overloaded_error', 'overloaded'],
  // Google's (gRPC status names)
  ['INVALID_ARGUMENT', 'invalid_request'],
  ['FAILED_PRECONDITION', 'invalid_request'],
  ['OUT_OF_RANGE', 'invalid_request'],
  ['ALREADY_EXISTS', 'invalid_request'],
  ['UNAUTHENTICATED', 'authentication'],
  ['PERMISSION_DENIED', 'permission'],
  ['NOT_FOUND', 'not_found'],
  ['RESOURCE_EXHAUSTED', 'rate_limit'],
  ['UNAVAILABLE', 'overloaded'],
  ['DEADLINE_EXCEEDED', 'timeout'],
  ['INTERNAL', 'server'],
  ['UNKNOWN', 'server'],
  // OpenAI's: its codes, and the types it sends with a null code
  ...openaiErrorCodes,
  ['invalid_api_key', 'authentication'],
  ['insufficient_quota', 'quota'],
  ['requests', 'rate_limit'],
  ['tokens', 'rate_limit'],
  ['service_unavailable_error', 'overloaded'],
  // The gateway's own, for an upstream stream it could not read to its end (attempt-converted-upstream.ts,
  // decode-openai-chat-stream.ts), and what a chained gateway of this kind sends for them.
  ...gatewayStreamCodes.map((code): [string, ErrorKind] => [code, 'connection']),
]);

/** The kinds that say no more than "the server failed" or "the request was refused". */
const genericKinds: ReadonlySet<ErrorKind> = new Set(['server', 'invalid_request']);

/**
 * Pure: the kind of an upstream error, from the vendor's code when it is one of the known words, else from
 * the HTTP status it came with (a mid-stream error has none: a server fault). A generic code gives way to a
 * status that says more: OpenAI answers an overload with a 503 of type `server_error`, a missing model with
 * a 404 of type `invalid_request_error`.
 */
export function readErrorKind(code: string | undefined, status?: number): ErrorKind {
  const known = code === undefined ? undefined : kindByVendorCode.get(code);
  const byStatus = status === undefined ? undefined : kindOfStatus(status);
  if (known === undefined) return byStatus ?? 'server';
  return byStatus !== undefined && genericKinds.has(known) && !genericKinds.has(byStatus) ? byStatus : known;
}

function kindOfStatus(status: number): ErrorKind {
  if (status === 413) return 'request_too_large';
  if (status === 401) return 'authentication';
  if (status === 402) return 'quota';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 400 && status < 500) return 'invalid_request';
  return 'server';
}
