import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';

/**
 * JSON bodies are read as bytes (Fastify enforces bodyLimit while reading, so a giant body is refused
 * without being buffered), kept raw for passthrough, and parsed once. Clients that send JSON without a
 * JSON content type (curl -d) are served too, as new-api does.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (request: { rawBody: Buffer | undefined }, body: Buffer, done: (error: Error | null, value?: unknown) => void) => {
    request.rawBody = body;
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(body.toString('utf8')));
    } catch (error) {
      done(new GatewayError('invalid_json', `Request body is not valid JSON: ${(error as Error).message}`));
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => parse(request, body as Buffer, done));
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => parse(request, body as Buffer, done));
}
