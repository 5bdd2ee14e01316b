import type { FastifyInstance } from 'fastify';
import { MultipartBody } from '../../relay/multipart-body.js';

/**
 * Multipart forms (image edits, spec §4.7) are read as bytes under the same body limit as JSON and parsed
 * only by the route that takes them; every other route answers 415 for one.
 */
export function registerMultipartBodyParser(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) => {
    done(null, new MultipartBody(body as Buffer, request.headers['content-type'] ?? 'multipart/form-data'));
  });
}
