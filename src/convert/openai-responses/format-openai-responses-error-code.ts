import { mapErrorKind } from '../../errors/map-error-kind.js';
import { readErrorKind } from '../../errors/read-error-kind.js';

/** OpenAI's `ResponseErrorCode`, the closed enum of `response.error.code` (its OpenAPI document). */
const responseErrorCodes: ReadonlySet<string> = new Set([
  'server_error', 'rate_limit_exceeded', 'invalid_prompt', 'data_residency_mismatch', 'bio_policy', 'vector_store_timeout',
  'invalid_image', 'invalid_image_format', 'invalid_base64_image', 'invalid_image_url', 'image_too_large', 'image_too_small',
  'image_parse_error', 'image_content_policy_violation', 'invalid_image_mode', 'image_file_too_large', 'unsupported_image_media_type',
  'empty_image_file', 'failed_to_download_image', 'image_file_not_found',
]);

/**
 * Pure: an upstream error's code (any vendor's) as the `error.code` of a failed Response: kept when it is
 * one of the enum's values (a Responses upstream's), else the enum's value for its kind
 * (`overloaded_error`, `UNAVAILABLE` → `server_error`; `RESOURCE_EXHAUSTED` → `rate_limit_exceeded`).
 */
export function formatOpenaiResponsesErrorCode(code: string | undefined): string {
  if (code !== undefined && responseErrorCodes.has(code)) return code;
  return mapErrorKind(readErrorKind(code)).openaiResponses;
}
