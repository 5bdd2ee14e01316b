import { GatewayError } from '../../../errors/gateway-error.js';
import { sameUrlDestination } from '../../../security/same-url-destination.js';

/**
 * Keys are write-only, so a channel's stored keys may only go where they were sent with: an update that moves
 * `base_url` anywhere else — another origin (scheme, host or port), or another path or query on the same one —
 * must carry the key(s) again, or whoever holds admin access could point the channel at a host of theirs, or
 * at their own tenant's path on a shared host, and read the keys off the next request's `Authorization`
 * (400 naming `key`). Case, a default port and trailing slashes are no move; nor is a change of `type`: every
 * type sends its keys to its `base_url`. `nextBaseUrl` is the stored form, undefined when the update leaves it.
 */
export function refuseKeyLessDestinationChange(currentBaseUrl: string, nextBaseUrl: string | undefined, carriesKeys: boolean): void {
  if (carriesKeys || nextBaseUrl === undefined || sameUrlDestination(currentBaseUrl, nextBaseUrl)) return;
  throw new GatewayError(
    'invalid_request',
    "key: a base_url with another origin or path needs the channel's key or keys in the same request; the stored keys are only ever sent where they were given for",
    { param: 'key' },
  );
}
