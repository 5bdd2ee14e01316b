import { GatewayError, type GatewayErrorOptions } from '../errors/gateway-error.js';

/**
 * The 502 for an upstream that refused the channel's credentials (refuses-channel-credentials.ts), in the
 * gateway's own words on every route: the client's key was accepted, and the upstream's message — it may
 * name the channel's account — is kept for the log (its attempts, or `logDetail`), never answered.
 * `refuser`: who refused, as the client knows it (`upstream`, `asset service`, `Conversations API`).
 */
export function channelCredentialsRefused(refuser: string, status: number, options: GatewayErrorOptions = {}): GatewayError {
  return new GatewayError('upstream_credentials_refused', `The ${refuser} refused the credentials of the gateway's channel (HTTP ${status}). Your API key was accepted; the gateway's operator must fix the channel.`, options);
}
