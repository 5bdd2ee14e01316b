import { GatewayError } from '../../../errors/gateway-error.js';
import { sameUrlOrigin } from '../../../security/same-url-origin.js';

/**
 * Keys are write-only, so a channel's stored keys may only go where they were sent with: an update that moves
 * `base_url` to another origin (scheme, host or port) must carry the key(s) again, or whoever holds admin
 * access could point the channel at a host of theirs and read the keys off the next request's `Authorization`
 * (400 naming `key`). A new path on the same origin passes, and so does a change of `type`: every type sends
 * its keys to its `base_url`. `nextBaseUrl` is the stored form (trailing slashes trimmed), undefined when the
 * update leaves it.
 */
export function refuseKeyLessOriginChange(currentBaseUrl: string, nextBaseUrl: string | undefined, carriesKeys: boolean): void {
  if (carriesKeys || nextBaseUrl === undefined || sameUrlOrigin(currentBaseUrl, nextBaseUrl)) return;
  throw new GatewayError(
    'invalid_request',
    "key: a base_url on another origin (scheme, host or port) needs the channel's key or keys in the same request; the stored keys are only ever sent to the origin they were given for",
    { param: 'key' },
  );
}
