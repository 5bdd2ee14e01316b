/**
 * The one error model (CONVENTIONS.md §7): a closed set of codes, each with one HTTP status from one
 * exhaustive switch. Every API style renders a GatewayError in its own envelope (see render-error.ts).
 */
export type GatewayErrorCode =
  | 'invalid_request'
  /** A create whose name (or key) is already taken. */
  | 'already_exists'
  | 'invalid_json'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'token_expired'
  | 'token_exhausted'
  | 'token_disabled'
  | 'user_disabled'
  | 'forbidden'
  | 'model_not_allowed'
  | 'group_not_allowed'
  | 'channel_pin_forbidden'
  | 'not_found'
  | 'route_not_found'
  | 'model_not_found'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'insufficient_quota'
  | 'rate_limited'
  | 'price_not_configured'
  | 'no_available_channel'
  /** No answer to be had from the upstream: unreachable, broken off mid-answer, unreadable (502). */
  | 'upstream_error'
  /** The upstream refused the channel's credentials (its 401/403): the gateway's key, not the client's (502). */
  | 'upstream_credentials_refused'
  /** The upstream says the channel's account is out of credit or disabled: the gateway's balance, not the client's (502). */
  | 'upstream_out_of_credit'
  | 'upstream_timeout'
  | 'not_implemented'
  | 'internal_error';

export function statusForCode(code: GatewayErrorCode): number {
  switch (code) {
    case 'invalid_request':
    case 'invalid_json':
    case 'price_not_configured':
    case 'model_not_found':
      return 400;
    case 'missing_api_key':
    case 'invalid_api_key':
    case 'token_expired':
    case 'token_exhausted':
    case 'token_disabled':
      return 401;
    case 'insufficient_quota':
      return 402;
    case 'user_disabled':
    case 'forbidden':
    case 'model_not_allowed':
    case 'group_not_allowed':
    case 'channel_pin_forbidden':
      return 403;
    case 'not_found':
    case 'route_not_found':
      return 404;
    case 'already_exists':
      return 409;
    case 'body_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'rate_limited':
      return 429;
    case 'internal_error':
      return 500;
    case 'not_implemented':
      return 501;
    case 'upstream_error':
    case 'upstream_credentials_refused':
    case 'upstream_out_of_credit':
      return 502;
    case 'no_available_channel':
      return 503;
    case 'upstream_timeout':
      return 504;
    default:
      return assertNever(code);
  }
}

export interface GatewayErrorOptions {
  /** Overrides the status of the code (an upstream error keeps the upstream's status). */
  status?: number;
  /** The request field at fault, when there is one (OpenAI's `param`). */
  param?: string;
  /** Headers to send with the error (Retry-After, x-ratelimit-*). */
  headers?: Record<string, string>;
  /**
   * An upstream's error answer, with the vendor's own code when its body had one (Anthropic's `error.type`,
   * OpenAI's `error.code` or `type`, Google's `error.status`): rendered in the client style's words for it.
   */
  upstream?: { code: string | undefined };
  /**
   * Said in the request's log row beside the message, never to the client: an upstream's own words where
   * the client is told the gateway's (they may name the channel's account).
   */
  logDetail?: string;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly status: number;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;
  readonly upstream: { code: string | undefined } | undefined;
  readonly logDetail: string | undefined;

  constructor(readonly code: GatewayErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.status = options.status ?? statusForCode(code);
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.upstream = options.upstream;
    this.logDetail = options.logDetail;
  }
}

export function assertNever(value: never): never {
  throw new Error(`Unhandled variant: ${JSON.stringify(value)}`);
}
