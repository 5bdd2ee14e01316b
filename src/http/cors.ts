import type { FastifyInstance, onSendHookHandler } from 'fastify';

/**
 * Cross-origin access, as new-api allows it: browser apps that call the gateway directly (chat web UIs,
 * the vendors' browser SDKs) preflight every call. Any origin may call, with no credentials: a cookie
 * session is never sent cross-origin, so the console's cookie-authenticated writes stay same-site.
 */
/**
 * Added to every answer, the relay's own (written straight to node:http) included. Without credentials
 * `*` exposes every header (x-request-id, the relay's and the rate limits'), and node:http validates two
 * short values per answer instead of a list of ten names.
 */
export const corsResponseHeaders = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
} as const;

const allowedMethods = 'GET, HEAD, POST, PUT, PATCH, DELETE';
/** When a preflight names none: what the OpenAI, Anthropic and Google SDKs send. */
const defaultAllowedHeaders = 'authorization, content-type, x-api-key, anthropic-version, anthropic-beta, x-goog-api-key, x-stainless-*';

const addCorsHeaders: onSendHookHandler = function addCorsHeaders(_request, reply, payload, done) {
  void reply.headers(corsResponseHeaders);
  done(null, payload);
};

/** The preflight answer for every path, and the CORS headers on every answer Fastify sends. */
export function registerCors(app: FastifyInstance): void {
  app.addHook('onSend', addCorsHeaders);
  app.options('/*', { config: { setsRequestId: true } }, (request, reply) => {
    const requested = request.headers['access-control-request-headers'];
    void reply
      .code(204)
      .headers({
        ...corsResponseHeaders,
        'access-control-allow-methods': allowedMethods,
        'access-control-allow-headers': typeof requested === 'string' && requested.trim() !== '' ? requested : defaultAllowedHeaders,
        'access-control-max-age': '86400',
        'x-request-id': request.id,
      })
      .send();
  });
}
