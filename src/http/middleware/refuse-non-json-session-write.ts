import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';

const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Pure: whether a Content-Type header names JSON (`application/json`, any parameters, any case). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * CSRF hardening of cookie-authenticated writes: a cross-site HTML form can POST `text/plain`,
 * `application/x-www-form-urlencoded` or `multipart/form-data` with the browser's cookies, never
 * `application/json` (that needs a CORS preflight, which the gateway never grants). So a write that a
 * console session authenticates must say it is JSON, else 415. Called after authentication and the role
 * check (401 and 403 come first); API-key and admin-key calls never reach it.
 */
export function refuseNonJsonSessionWrite(request: FastifyRequest): void {
  if (!writeMethods.has(request.method) || isJsonContentType(request.headers['content-type'])) return;
  throw new GatewayError('unsupported_media_type', 'A write made with a console session must be sent as Content-Type: application/json.');
}
