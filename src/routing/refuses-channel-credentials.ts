import type { UpstreamFailure } from './classify-upstream-failure.js';

/**
 * Pure: whether an upstream refused the channel's credentials — a 401, a 403, or a key refused whatever the
 * status (Google answers a bad key with a 400, reason `API_KEY_INVALID`). The gateway accepted the client's
 * own key before calling: this is the gateway's key, which the client neither sent nor can fix, so the
 * client is never told it in the words for a refused key (relay-envelope.ts answers a 502).
 */
export function refusesChannelCredentials(failure: UpstreamFailure): boolean {
  return failure.kind === 'status' && (failure.status === 401 || failure.status === 403 || failure.reason === 'key_rejected');
}
