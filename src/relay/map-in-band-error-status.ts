/**
 * Pure: the status an upstream would have refused the request with, for an error it sent in-band (an error
 * event or chunk after its 200, a whole answer that says it failed) whose code says the request itself is
 * at fault — another channel would say the same, so it goes back to the client as that 400 would. Read from
 * the field a client cannot write, as the decoders carry it in the error part's `code`: Anthropic's
 * `error.type`, OpenAI's `error.code` (Chat's `error.type` when it has no code), Google's `error.status`.
 * Never from the message, which may quote the request (read-upstream-error-reason.ts). Undefined for
 * anything else — overloaded, server errors, rate limits, unknown codes —: the channel's, failed over.
 */
export function mapInBandErrorStatus(code: string | undefined): 400 | 413 | undefined {
  return code === undefined ? undefined : requestFaultStatuses.get(code);
}

const requestFaultStatuses: ReadonlyMap<string, 400 | 413> = new Map([
  // Anthropic's error types (its docs: errors); OpenAI's type for the same.
  ['invalid_request_error', 400],
  ['request_too_large', 413],
  // Google's canonical status for a 400 (its docs: API errors).
  ['INVALID_ARGUMENT', 400],
  // OpenAI's codes for the client's own input: Chat's, and the Responses `error.code`s that name it.
  ['context_length_exceeded', 400],
  ['invalid_prompt', 400],
  ['invalid_image', 400],
  ['invalid_image_format', 400],
  ['invalid_base64_image', 400],
  ['invalid_image_url', 400],
  ['image_too_large', 400],
  ['image_too_small', 400],
  ['image_parse_error', 400],
  ['image_content_policy_violation', 400],
  ['invalid_image_mode', 400],
  ['image_file_too_large', 400],
  ['unsupported_image_media_type', 400],
  ['empty_image_file', 400],
  ['failed_to_download_image', 400],
  ['image_file_not_found', 400],
]);
