import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import type { TaskRow } from '../../storage/tasks-repository.js';
import { publicTaskIdPattern } from '../../tasks/public-task-id.js';
import type { TaskSubmitServices } from './run-task-submit.js';

/**
 * The caller's own task of `kind` that a submit continues (a Midjourney button, a Suno continuation), by
 * its public id: 404 naming `param` when it is not the caller's (or has no upstream id), 502 when the
 * channel that made it is gone — both before anything is reserved or sent.
 */
export async function findOriginTask(services: TaskSubmitServices, request: FastifyRequest, publicId: string, kind: TaskRow['kind'], param: string): Promise<TaskRow> {
  const caller = request.caller;
  if (caller === undefined) throw new Error('an origin is looked up for an authenticated continuation');
  const task = publicTaskIdPattern.test(publicId) ? await services.tasks.findForUser(publicId, caller.user.id) : undefined;
  if (task === undefined || task.kind !== kind || task.upstream_id === null || task.upstream_id === '') {
    throw new GatewayError('not_found', `task_not_found: ${publicId.slice(0, 64)}`, { param });
  }
  if (services.relay.catalog.snapshot.channels.every((channel) => channel.id !== task.channel_id)) {
    throw new GatewayError('upstream_error', `The channel that made task ${task.public_id} is gone; it cannot be continued.`);
  }
  return task;
}
