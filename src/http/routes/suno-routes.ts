import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { runSunoSubmit } from '../../relay/suno/run-suno-submit.js';
import type { TaskSubmitServices } from '../../relay/task-submit/run-task-submit.js';
import { invalidParameter, requireObjectBody } from '../../relay/validate-body.js';
import { presentSunoTask } from '../../tasks/present-suno-task.js';
import { publicTaskIdPattern } from '../../tasks/public-task-id.js';
import type { AppServices } from '../app-services.js';
import { corsResponseHeaders } from '../cors.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { refreshCaller } from '../refresh-caller.js';

/** Ids one batch fetch may ask for. */
const maxFetchIds = 100;

/**
 * Suno (protocols.md §2, spec §4.9's `/suno/fetch`): submit music or lyrics tasks; fetch one or a batch of
 * the caller's tasks from the task rows (the poll loop keeps them current). Errors are new-api's task
 * envelope, `{code, message, data: null}`.
 */
export async function sunoRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const options = { config: { errorStyle: 'task' as const }, onRequest: authenticateCaller(services, 'openai') };
  const submit: TaskSubmitServices = { relay: services.relay, tasks: services.repositories.tasks, pollIntervalMs: services.environment.taskPollIntervalSeconds * 1000 };

  app.post<{ Params: { action: string } }>('/suno/submit/:action', options, (request, reply) => {
    refreshCaller(services, request);
    return runSunoSubmit(submit, request.params.action, request, reply);
  });

  app.get<{ Params: { id: string } }>('/suno/fetch/:id', options, async (request, reply) => {
    const [task] = await callersSunoTasks(services, request, [request.params.id]);
    if (task === undefined) throw new GatewayError('not_found', `Task not found: ${request.params.id.slice(0, 64)}`);
    return reply.headers(corsResponseHeaders).send({ code: 'success', message: '', data: presentSunoTask(task) });
  });

  app.post('/suno/fetch', options, async (request, reply) => {
    refreshCaller(services, request);
    const body = requireObjectBody(request.body);
    const ids = body.ids;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw invalidParameter('ids', 'must be an array of task ids');
    if (ids.length > maxFetchIds) throw invalidParameter('ids', `at most ${maxFetchIds} ids at once`);
    const tasks = await callersSunoTasks(services, request, ids as string[]);
    const action = typeof body.action === 'string' ? body.action.toUpperCase() : undefined;
    const data = tasks.map(presentSunoTask).filter((task) => action === undefined || task.action === action);
    return reply.headers(corsResponseHeaders).send({ code: 'success', message: '', data });
  });
}

/** The caller's Suno tasks among `ids`, in the order asked; ids that are not public task ids are not looked up. */
async function callersSunoTasks(services: AppServices, request: FastifyRequest, ids: readonly string[]) {
  const caller = request.caller;
  if (caller === undefined) throw new Error('suno routes run after authentication');
  const wanted = [...new Set(ids.filter((id) => publicTaskIdPattern.test(id)))];
  const rows = await services.repositories.tasks.findManyForUser(wanted, caller.user.id, 'suno');
  const byId = new Map(rows.map((row) => [row.public_id, row]));
  return wanted.flatMap((id) => byId.get(id) ?? []);
}
