import type { GatewayError } from './gateway-error.js';

/** Pure: what a log row says of an error — the client's message, and the upstream's own words it was not told (`logDetail`). */
export function formatErrorLogText(error: GatewayError): string {
  return error.logDetail === undefined ? error.message : `${error.message} The upstream said: ${error.logDetail}`;
}
