import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { TrustProxy } from '../config/read-environment.js';

/**
 * How a request's client address is read where Fastify's `request.ip` is not there (a WebSocket upgrade):
 * by the same TRUST_PROXY rule — the socket's address, the leftmost X-Forwarded-For address, or the nearest
 * one that is not a trusted proxy (read-environment.ts trustProxySetting).
 */
export function clientAddressReader(trust: TrustProxy): (request: IncomingMessage) => string {
  if (trust === false) return (request) => request.socket.remoteAddress ?? '';
  const trusted = trust === true ? () => true : proxyAddr.compile(trust);
  return (request) => proxyAddr(request, trusted);
}
