/**
 * A stream error's code → Google's error `status` and HTTP `code` (protocols.md §7). Google's own statuses
 * pass through; the other styles' common codes map to their Google equivalents; the rest is INTERNAL.
 */
const httpCodeByStatus: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

const statusByForeignCode: Record<string, string> = {
  invalid_request_error: 'INVALID_ARGUMENT',
  authentication_error: 'UNAUTHENTICATED',
  permission_error: 'PERMISSION_DENIED',
  not_found_error: 'NOT_FOUND',
  rate_limit_error: 'RESOURCE_EXHAUSTED',
  rate_limit_exceeded: 'RESOURCE_EXHAUSTED',
  overloaded_error: 'UNAVAILABLE',
  timeout_error: 'DEADLINE_EXCEEDED',
  api_error: 'INTERNAL',
  server_error: 'INTERNAL',
};

export function formatGeminiErrorStatus(code: string | undefined): { code: number; status: string } {
  let status = 'INTERNAL';
  if (code !== undefined && Object.hasOwn(httpCodeByStatus, code)) status = code;
  else if (code !== undefined && Object.hasOwn(statusByForeignCode, code)) status = statusByForeignCode[code] ?? status;
  return { code: httpCodeByStatus[status] ?? 500, status };
}
