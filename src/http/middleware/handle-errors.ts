import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { renderError, type ErrorStyle } from '../../errors/render-error.js';
import { errorStyleForPath } from '../error-style-for-path.js';

export function errorStyleOf(request: FastifyRequest): ErrorStyle {
  return request.errorStyle ?? request.routeOptions.config?.errorStyle ?? errorStyleForPath(request.url);
}

/** Every error answer carries the request id (build-app.ts adds no per-request hook on the relay routes). */
export function sendGatewayError(request: FastifyRequest, reply: FastifyReply, error: GatewayError): FastifyReply {
  const style = errorStyleOf(request);
  const rendered = renderError(error, style, request.id);
  void reply.header('x-request-id', request.id);
  // Anthropic's SDK reads the id from `request-id` (protocols.md §6).
  if (style === 'anthropic') void reply.header('request-id', request.id);
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  if (isBodyPending(request.raw)) void reply.header('connection', 'close');
  return reply.code(rendered.status).send(rendered.body);
}

/**
 * Whether the request announced a body that has not all arrived: an answer sent now (a refusal made at
 * `onRequest`, before the body is read) closes the connection. On keep-alive node:http would otherwise
 * read and discard the rest of the body, up to max_body_mb and for as long as the client takes, before the
 * socket could carry another request. Fastify does the same for a body its parser refused (413, a bad
 * Content-Length); a hook's refusal it leaves kept alive.
 */
function isBodyPending(raw: IncomingMessage): boolean {
  if (raw.complete) return false;
  const length = raw.headers['content-length'];
  return (length !== undefined && length !== '0') || raw.headers['transfer-encoding'] !== undefined;
}

/** Turns any thrown error into the one error model; unknown faults become 500 and are logged. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('body_too_large', 'Request body is larger than the limit of this gateway.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('unsupported_media_type', 'Unsupported Content-Type.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('invalid_json', 'Request body is empty; a JSON object is required.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid_request', 'Content-Length does not match the body.');
    case 'FST_ERR_VALIDATION':
      return new GatewayError('invalid_request', fastifyError.message ?? 'Invalid request.');
    case 'FST_ERR_BAD_URL':
      return new GatewayError('invalid_request', 'The URL is not validly percent-encoded.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new GatewayError('invalid_request', 'A path parameter of the URL is too long.', { status: 414 });
    default:
      break;
  }
  if (fastifyError.statusCode === 400 && fastifyError.message !== undefined) {
    return new GatewayError('invalid_request', fastifyError.message);
  }
  // Code that walks the client's JSON (prompt collectors, parsers, schema walkers, JSON.stringify of its
  // tools) overflows the stack on a body nested thousands of levels deep: the client's mistake, not a 500.
  if (error instanceof RangeError && error.message.includes('call stack')) {
    return new GatewayError('invalid_request', 'The request body is nested too deeply.');
  }
  return new GatewayError('internal_error', 'Internal server error.', { cause: error });
}

/**
 * Fastify's `frameworkErrors` option (a URL that is not validly percent-encoded, an over-long path parameter):
 * these are answered before any route or hook runs, so without it they bypass the error model and carry no
 * request id. Pass it to the Fastify constructor: `Fastify({ frameworkErrors: handleFrameworkError, … })`.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void sendGatewayError(request, reply, toGatewayError(error));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toGatewayError(error);
    if (gatewayError.code === 'internal_error') request.log.error({ err: error }, 'unhandled error');
    return sendGatewayError(request, reply, gatewayError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0];
    return sendGatewayError(request, reply, new GatewayError('route_not_found', `Invalid URL (${request.method} ${path})`));
  });
}
