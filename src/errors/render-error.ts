import { formatOpenaiErrorWords } from './format-openai-error-words.js';
import { assertNever, type GatewayError, type GatewayErrorCode } from './gateway-error.js';
import { mapErrorKind } from './map-error-kind.js';
import { readErrorKind, type ErrorKind } from './read-error-kind.js';

/** The API styles whose error envelopes differ (spec §7, protocols.md §6.3, §7, §11). */
/**
 * `task`: new-api's task routes (Suno), `{code, message, data: null}` with a string code (protocols.md §0);
 * `mj`: the Midjourney-proxy routes, `{code, description, type, result: null}` with the proxy's numeric
 * codes (protocols.md §1.4): 3 not found, 4 a refused request, 9 a failure on this side.
 */
export type ErrorStyle = 'openai' | 'anthropic' | 'gemini' | 'api' | 'task' | 'mj';

export interface RenderedError {
  status: number;
  body: unknown;
}

/** Renders one gateway error in the envelope of the calling style. Pure. */
export function renderError(error: GatewayError, style: ErrorStyle, requestId: string): RenderedError {
  // An upstream's error answer in the client's words for its kind, never another vendor's (map-error-kind.ts);
  // the gateway's own failure to get an answer in the words of its kind too, its code kept for OpenAI clients.
  const upstreamKind = error.upstream === undefined ? upstreamFailureKind(error.code) : readErrorKind(error.upstream.code, error.status);
  switch (style) {
    case 'openai': {
      const words =
        error.upstream !== undefined ? formatOpenaiErrorWords(error.upstream.code, error.status)
        : upstreamKind !== undefined ? { type: mapErrorKind(upstreamKind).openai.type, code: error.code }
        : { type: openaiType(error.code), code: openaiCode(error.code) };
      return {
        status: error.status,
        body: {
          error: {
            message: `${error.message} (request id: ${requestId})`,
            type: words.type,
            param: error.param ?? null,
            code: words.code,
          },
        },
      };
    }
    case 'anthropic':
      return {
        status: error.status,
        body: {
          type: 'error',
          error: { type: upstreamKind === undefined ? anthropicType(error.status) : mapErrorKind(upstreamKind).anthropic, message: `${error.message} (request id: ${requestId})` },
          request_id: requestId,
        },
      };
    case 'gemini':
      return {
        status: error.status,
        body: { error: { code: error.status, message: error.message, status: upstreamKind === undefined ? geminiStatus(error.status) : mapErrorKind(upstreamKind).gemini.status } },
      };
    case 'api':
      return { status: error.status, body: { success: false, message: error.message } };
    case 'task':
      return { status: error.status, body: { code: error.code === 'not_found' ? 'task_not_exist' : error.code, message: `${error.message} (request id: ${requestId})`, data: null } };
    case 'mj':
      return { status: error.status, body: { code: mjCode(error.status), description: `${error.message} (request id: ${requestId})`, type: error.code, result: null } };
    default:
      return assertNever(style);
  }
}

/** The kind of the gateway's own codes for an upstream that gave no usable answer; undefined for every other code. */
function upstreamFailureKind(code: GatewayErrorCode): ErrorKind | undefined {
  if (code === 'upstream_error') return 'connection';
  if (code === 'upstream_timeout') return 'timeout';
  if (code === 'upstream_credentials_refused') return 'authentication';
  if (code === 'upstream_out_of_credit') return 'quota';
  return undefined;
}

function mjCode(status: number): number {
  if (status === 404) return 3;
  return status >= 500 ? 9 : 4;
}

function openaiType(code: GatewayErrorCode): string {
  switch (code) {
    case 'missing_api_key':
    case 'invalid_api_key':
    case 'token_expired':
    case 'token_exhausted':
    case 'token_disabled':
      return 'authentication_error';
    case 'user_disabled':
    case 'forbidden':
    case 'model_not_allowed':
    case 'group_not_allowed':
    case 'channel_pin_forbidden':
      return 'permission_error';
    case 'insufficient_quota':
      return 'insufficient_quota';
    case 'rate_limited':
      return 'rate_limit_error';
    case 'upstream_error':
    case 'upstream_credentials_refused':
    case 'upstream_out_of_credit':
    case 'upstream_timeout':
    case 'internal_error':
    case 'no_available_channel':
    case 'not_implemented':
      return 'server_error';
    case 'invalid_request':
    case 'already_exists':
    case 'invalid_json':
    case 'not_found':
    case 'route_not_found':
    case 'model_not_found':
    case 'body_too_large':
    case 'unsupported_media_type':
    case 'price_not_configured':
      return 'invalid_request_error';
    default:
      return assertNever(code);
  }
}

/** OpenAI clients branch on `error.code`; keep the values they know (protocols.md §11). */
function openaiCode(code: GatewayErrorCode): string {
  switch (code) {
    case 'invalid_api_key':
    case 'missing_api_key':
      return 'invalid_api_key';
    case 'no_available_channel':
      return 'model_not_found';
    case 'rate_limited':
      return 'rate_limit_exceeded';
    case 'route_not_found':
      return 'not_found';
    case 'not_implemented':
      return 'api_not_implemented';
    default:
      return code;
  }
}

function anthropicType(status: number): string {
  if (status === 400 || status === 409 || status === 415) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'billing_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status === 504) return 'timeout_error';
  return 'api_error';
}

function geminiStatus(status: number): string {
  if (status === 400 || status === 413 || status === 415) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 402 || status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'ALREADY_EXISTS';
  if (status === 501) return 'UNIMPLEMENTED';
  if (status === 503) return 'UNAVAILABLE';
  if (status === 504) return 'DEADLINE_EXCEEDED';
  return 'INTERNAL';
}
