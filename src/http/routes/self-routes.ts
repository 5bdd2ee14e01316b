import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UserRecord } from '../../catalog/catalog-records.js';
import { presentOwnMjTask } from '../../tasks/present-own-mj-task.js';
import { presentOwnTask } from '../../tasks/present-own-task.js';
import type { AppServices } from '../app-services.js';
import { authenticateSession } from '../middleware/authenticate-session.js';
import { parseOwnLogFilter } from './admin/parse-log-filter.js';
import { parsePageRequest } from './admin/parse-page-request.js';
import { successEnvelope } from './admin/success-envelope.js';
import { parseOwnMjTaskFilter } from './parse-own-mj-task-filter.js';
import { parseOwnTaskFilter } from './parse-own-task-filter.js';

/**
 * What a logged-in console user may read of their own (new-api's `/api/log/self`, `/api/log/self/stat`,
 * `/api/task/self` and `/api/mj/self`): their request log, its totals, their tasks of every kind, and their
 * Midjourney tasks in new-api's record shape, newest first, paged as the admin list (`p`,
 * `page_size`). The session alone says whose: no filter reaches another user's rows. A task whose client
 * left after the upstream's 2xx is charged and kept; this is where the user who paid finds its id.
 */
export async function selfRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  if (!app.hasRequestDecorator('sessionUser')) app.decorateRequest('sessionUser', undefined);
  const options = { config: { errorStyle: 'api' as const }, onRequest: authenticateSession(services) };

  app.get('/api/log/self', options, async (request) => {
    const filter = parseOwnLogFilter(request.query);
    return successEnvelope(await services.repositories.logs.listForUser(sessionUserOf(request).id, filter, parsePageRequest(request.query)));
  });

  // new-api's `GET /api/log/self/stat`: the same filters; `quota` net over them, `rpm`/`tpm` of the last minute.
  app.get('/api/log/self/stat', options, async (request) => {
    const filter = parseOwnLogFilter(request.query);
    return successEnvelope(await services.repositories.logs.statForUser(sessionUserOf(request).id, filter, services.now()));
  });

  app.get('/api/task/self', options, async (request) => {
    const filter = parseOwnTaskFilter(request.query);
    const page = await services.repositories.tasks.listForUser(sessionUserOf(request).id, filter, parsePageRequest(request.query));
    return successEnvelope({ ...page, items: page.items.map(presentOwnTask) });
  });

  // new-api's `GET /api/mj/self` (its console calls it with the trailing slash).
  const ownMjTasks = async (request: FastifyRequest) => {
    const filter = parseOwnMjTaskFilter(request.query);
    const page = await services.repositories.tasks.listMjForUser(sessionUserOf(request).id, filter, parsePageRequest(request.query));
    return successEnvelope({ ...page, items: page.items.map(presentOwnMjTask) });
  };
  app.get('/api/mj/self', options, ownMjTasks);
  app.get('/api/mj/self/', options, ownMjTasks);
}

function sessionUserOf(request: FastifyRequest): UserRecord {
  if (request.sessionUser === undefined) throw new Error('self routes run after authenticateSession');
  return request.sessionUser;
}
