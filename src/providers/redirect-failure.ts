import type { UpstreamFailure } from '../routing/classify-upstream-failure.js';
import { maskUrlCredentials } from '../security/mask-url-credentials.js';

/** Whether an upstream status is a redirect (3xx), which the gateway never follows. */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status < 400;
}

/**
 * Pure: an upstream's 3xx as a failed attempt. Nothing was delivered (the gateway follows no redirect: the
 * request's body and the channel's key are not sent to a place the operator did not configure), so it is a
 * 502 to the client, tried on another channel and counted against this one like a 5xx — a redirect is the
 * channel's configuration (a base_url written http:// that the vendor moves to https://, a moved endpoint),
 * and every request to it would get the same. The Location goes to the log only, without its query (which
 * may carry a key) or credentials, since a channel's hosts are not the client's business.
 */
export function redirectFailure(status: number, location: string | undefined): UpstreamFailure {
  const message = `The upstream answered a redirect (HTTP ${status}), which the gateway does not follow: the channel's base URL may be out of date.`;
  if (location === undefined || location === '') return { kind: 'status', status: 502, message };
  const place = maskUrlCredentials(location.split(/[?#]/, 1)[0] ?? '').slice(0, 200);
  return { kind: 'status', status: 502, message, detail: `(location: ${place})` };
}
