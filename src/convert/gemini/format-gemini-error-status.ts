import { mapErrorKind } from '../../errors/map-error-kind.js';
import { readErrorKind } from '../../errors/read-error-kind.js';

/**
 * Google's own statuses, with their HTTP codes (protocols.md §7): kept as they are. Not UNAUTHENTICATED or
 * PERMISSION_DENIED: an upstream's refers to the channel's key, which a Gemini client would take for its own
 * (map-error-kind.ts tells it as a server fault).
 */
const httpCodeByStatus: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/**
 * A stream error's code → Google's error `status` and HTTP `code`. Google's own statuses pass through;
 * another vendor's code becomes Google's status for its kind (read-error-kind.ts), INTERNAL when unknown.
 */
export function formatGeminiErrorStatus(code: string | undefined): { code: number; status: string } {
  if (code !== undefined && Object.hasOwn(httpCodeByStatus, code)) return { code: httpCodeByStatus[code] ?? 500, status: code };
  return mapErrorKind(readErrorKind(code)).gemini;
}
