import Fastify, { LogController, type FastifyInstance, type onRequestHookHandler } from 'fastify';
import type { AppServices } from './app-services.js';
import { generateRequestId } from './generate-request-id.js';
import './fastify-types.js';
import { registerCors } from './cors.js';
import { handleFrameworkError, registerErrorHandling } from './middleware/handle-errors.js';
import { registerJsonBodyParser } from './middleware/parse-json-body.js';
import { registerMultipartBodyParser } from './middleware/parse-multipart-body.js';
import { registerRoutes } from './register-routes.js';
import type { TrustProxy } from '../config/read-environment.js';

export interface BuildAppOptions {
  /** Request body limit in bytes (max_body_mb); over it → 413 while reading. */
  bodyLimitBytes: number;
  logLevel: string;
  /** Whose X-Forwarded-For `request.ip` is read from (TRUST_PROXY); false: the socket's address. */
  trustProxy: TrustProxy;
}

/** Builds the Fastify app: request ids, body parsing, one error handler, and the route list. */
export async function buildApp(services: AppServices, options: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logLevel === 'silent' ? false : { level: options.logLevel },
    bodyLimit: options.bodyLimitBytes,
    // node:http's own default, which Fastify turns off: a request (headers and body) that has not arrived
    // in 5 minutes is dropped (408), so a client that never finishes its body cannot hold a socket forever.
    requestTimeout: 300_000,
    genReqId: () => generateRequestId(),
    // Per-request lines cost time on the hot path; the request log table records every relay call.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: options.trustProxy,
    // Task ids and Gemini model:action segments can be long; Fastify's default (100) would answer a raw 414.
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: handleFrameworkError,
  });
  app.decorateRequest('caller', undefined);
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('errorStyle', undefined);
  // Every response carries x-request-id. Errors get it from sendGatewayError and relay answers from their
  // client headers, so routes marked `config.setsRequestId` skip this per-request hook (the hot path).
  app.addHook('onRoute', (route) => {
    if (route.config?.setsRequestId === true) return;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [sendRequestId, ...existing];
  });
  registerJsonBodyParser(app);
  registerMultipartBodyParser(app);
  registerErrorHandling(app);
  registerCors(app);
  await registerRoutes(app, services);
  return app;
}

const sendRequestId: onRequestHookHandler = function sendRequestId(request, reply, done) {
  void reply.header('x-request-id', request.id);
  done();
};
