import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.js';
import { deleteLogsBefore } from '../../../storage/delete-old-rows.js';
import type { AppServices } from '../../app-services.js';
import { describeAdminRoute, pageQuerystring } from './describe-admin-route.js';
import { parseIntegerQuery } from './parse-integer-query.js';
import { refuseUnlessRoot } from './refuse-unless-root.js';
import { logFilterQuerystring, parseLogFilter } from './parse-log-filter.js';
import { parsePageRequest } from './parse-page-request.js';
import { successEnvelope } from './success-envelope.js';

const tag = 'logs';

/** /api/admin/logs: the request log, per-model, per-day usage totals, and deleting what is old. */
export async function logRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const logs = services.repositories.logs;

  app.get(
    '/logs',
    { schema: describeAdminRoute({ tag, summary: 'List request log entries, newest first', querystring: { ...pageQuerystring, ...logFilterQuerystring } }) },
    async (request) => successEnvelope(await logs.list(parseLogFilter(request.query), parsePageRequest(request.query))),
  );

  app.get(
    '/logs/usage',
    { schema: describeAdminRoute({ tag, summary: 'Usage per model per UTC day: requests made, quota net of task refunds', querystring: logFilterQuerystring }) },
    async (request) => successEnvelope(await logs.aggregateByModelAndDay(parseLogFilter(request.query))),
  );

  app.delete(
    '/logs',
    {
      schema: describeAdminRoute({
        tag,
        summary: 'Delete the log entries created before a time (log_retention_days does it every hour)',
        querystring: { before: { type: 'integer', description: 'Unix milliseconds (exclusive), not negative; required.' } },
      }),
    },
    async (request) => {
      // The log is the record of what was billed: only root erases it, as in new-api.
      refuseUnlessRoot(request, 'the request log');
      const before = parseIntegerQuery(request.query, 'before');
      if (before === undefined || before < 0) {
        throw new GatewayError('invalid_request', 'Query parameter before (unix milliseconds, not negative) is required.', { param: 'before' });
      }
      const { db, dialect } = services.database;
      return successEnvelope({ deleted: await deleteLogsBefore(db, dialect, before) });
    },
  );
}
