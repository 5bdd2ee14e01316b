import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.js';
import { describeAdminRoute, pageQuerystring } from './describe-admin-route.js';
import { logFilterQuerystring, parseLogFilter } from './parse-log-filter.js';
import { parsePageRequest } from './parse-page-request.js';
import { successEnvelope } from './success-envelope.js';

const tag = 'logs';

/** /api/admin/logs: the request log (read-only) and per-model, per-day usage totals. */
export async function logRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const logs = services.repositories.logs;

  app.get(
    '/logs',
    { schema: describeAdminRoute({ tag, summary: 'List request log entries, newest first', querystring: { ...pageQuerystring, ...logFilterQuerystring } }) },
    async (request) => successEnvelope(await logs.list(parseLogFilter(request.query), parsePageRequest(request.query))),
  );

  app.get(
    '/logs/usage',
    { schema: describeAdminRoute({ tag, summary: 'Usage per model per UTC day', querystring: logFilterQuerystring }) },
    async (request) => successEnvelope(await logs.aggregateByModelAndDay(parseLogFilter(request.query))),
  );
}
