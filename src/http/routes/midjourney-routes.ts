import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { mjSecretHeaders } from '../../providers/midjourney/mj-secret-headers.js';
import { admitFreeRequest } from '../../relay/admit-free-request.js';
import { mjSubmitRoutes } from '../../relay/midjourney/mj-request.js';
import { runMjSubmit } from '../../relay/midjourney/run-mj-submit.js';
import type { TaskSubmitServices } from '../../relay/task-submit/run-task-submit.js';
import { invalidParameter, requireObjectBody } from '../../relay/validate-body.js';
import type { TaskRow } from '../../storage/tasks-repository.js';
import { keyByFingerprint } from '../../tasks/key-fingerprint.js';
import { mjImageUrlOf, presentMjTask } from '../../tasks/present-mj-task.js';
import { publicTaskIdPattern } from '../../tasks/public-task-id.js';
import type { AppServices } from '../app-services.js';
import { corsResponseHeaders } from '../cors.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { refreshCaller } from '../refresh-caller.js';
import { relayDownload } from '../relay-download.js';

/** The speed prefixes MJ clients put before `/mj` (protocols.md §1.1); the proxy is called at `/mj/…` either way. */
const modes = ['mj-fast', 'mj-turbo', 'mj-relax'];
/** Ids one `list-by-condition` may ask for. */
const maxConditionIds = 100;

/**
 * Spec §4.8: the Midjourney-proxy routes, under `/mj` and each speed prefix. Submits are tasks
 * (run-mj-submit.ts); fetch and list-by-condition read the caller's task rows (the poll loop keeps them
 * current); image-seed asks the task's own channel; `/mj/image/{id}` relays a task's image with no key.
 * Errors use the proxy's envelope, `{code, description, type, result: null}`.
 */
export async function midjourneyRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const options = { config: { errorStyle: 'mj' as const }, onRequest: authenticateCaller(services, 'midjourney') };
  const submit: TaskSubmitServices = { relay: services.relay, tasks: services.repositories.tasks, pollIntervalMs: services.environment.taskPollIntervalSeconds * 1000 };

  for (const mode of [undefined, ...modes]) {
    const prefix = mode === undefined ? '/mj' : `/${mode}/mj`;
    for (const route of mjSubmitRoutes) {
      const path = route === 'swap' ? `${prefix}/insight-face/swap` : `${prefix}/submit/${route}`;
      app.post(path, options, (request, reply) => {
        refreshCaller(services, request);
        return runMjSubmit(submit, route, mode?.slice('mj-'.length), request, reply);
      });
    }

    app.get<{ Params: { id: string } }>(`${prefix}/task/:id/fetch`, options, async (request, reply) => {
      const task = await callersMjTask(services, request, request.params.id);
      return reply.headers(corsResponseHeaders).send(presentMjTask(task));
    });

    app.post(`${prefix}/task/list-by-condition`, options, async (request, reply) => {
      const caller = refreshCaller(services, request);
      const ids = requireObjectBody(request.body).ids;
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw invalidParameter('ids', 'must be an array of task ids');
      if (ids.length > maxConditionIds) throw invalidParameter('ids', `at most ${maxConditionIds} ids at once`);
      const wanted = [...new Set((ids as string[]).filter((id) => publicTaskIdPattern.test(id)))];
      const rows = new Map((await services.repositories.tasks.findManyForUser(wanted, caller.user.id, 'mj')).map((row) => [row.public_id, row]));
      return reply.headers(corsResponseHeaders).send(wanted.flatMap((id) => rows.get(id) ?? []).map(presentMjTask));
    });

    app.get<{ Params: { id: string } }>(`${prefix}/task/:id/image-seed`, options, async (request, reply) => {
      const task = await callersMjTask(services, request, request.params.id);
      // Free, but it asks the operator's proxy: one request against the rpm windows.
      const admission = await admitFreeRequest(services.relay, request);
      return reply.headers(corsResponseHeaders).headers(admission.rateHeaders).send(await imageSeedOf(services, task));
    });

    // No key (protocols.md §1.1): the id is 32 random characters, and this is where `<img>` tags point.
    app.get<{ Params: { id: string } }>(`${prefix}/image/:id`, { config: { errorStyle: 'mj' as const } }, async (request, reply) => {
      const { id } = request.params;
      const task = publicTaskIdPattern.test(id) ? await services.repositories.tasks.findByPublicId(id) : undefined;
      const url = task?.kind === 'mj' ? mjImageUrlOf(task) : undefined;
      if (task === undefined || url === undefined) throw new GatewayError('not_found', `No image for task ${id.slice(0, 64)}.`);
      await relayDownload(services.relay, { url, headers: imageHeaders(services, task, url), defaultType: 'image/png', allowedType: 'image/', what: 'the image' }, request, reply);
    });
  }
}

async function callersMjTask(services: AppServices, request: FastifyRequest, publicId: string): Promise<TaskRow> {
  const caller = request.caller;
  if (caller === undefined) throw new Error('mj routes run after authentication');
  const task = publicTaskIdPattern.test(publicId) ? await services.repositories.tasks.findForUser(publicId, caller.user.id) : undefined;
  if (task === undefined || task.kind !== 'mj') throw new GatewayError('not_found', `task_no_found: ${publicId.slice(0, 64)}`);
  return task;
}

/**
 * The seed of a finished task's image, from the channel and key that made it (not billed): the proxy's
 * `{code, description, result}` as it answered; a proxy that cannot answer is a 502.
 */
async function imageSeedOf(services: AppServices, task: TaskRow): Promise<Record<string, unknown>> {
  const channel = services.catalog.snapshot.channels.find((candidate) => candidate.id === task.channel_id);
  const key = channel === undefined ? undefined : keyByFingerprint(channel.keys, task.key_fingerprint);
  if (channel === undefined || key === undefined || task.upstream_id === null || task.upstream_id === '') throw new GatewayError('upstream_error', `The channel that made task ${task.public_id} is gone.`);
  if (task.status !== 'success') throw new GatewayError('invalid_request', `task_status_not_success: task ${task.public_id} is ${task.status}.`);
  const sent = await services.relay.upstream.send({
    url: `${channel.baseUrl}/mj/task/${encodeURIComponent(task.upstream_id)}/image-seed`,
    method: 'GET',
    headers: mjSecretHeaders(key),
    body: undefined,
    signal: AbortSignal.timeout(30_000),
  });
  if (!sent.ok) throw new GatewayError('upstream_error', `The Midjourney proxy did not answer: ${sent.failure.message}`);
  const text = await sent.response.body.text().catch(() => '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const answer = json as Record<string, unknown> | undefined;
  if (sent.response.statusCode >= 300 || answer === undefined || answer === null || typeof answer.code !== 'number') {
    throw new GatewayError('upstream_error', `The Midjourney proxy answered ${sent.response.statusCode} without a seed.`);
  }
  return { code: answer.code, description: typeof answer.description === 'string' ? answer.description : '', result: typeof answer.result === 'string' ? answer.result : null };
}

/** The proxy's secret goes only to the proxy itself (an image it serves), never to a CDN. */
function imageHeaders(services: AppServices, task: TaskRow, url: string): Record<string, string> {
  const channel = services.catalog.snapshot.channels.find((candidate) => candidate.id === task.channel_id);
  if (channel === undefined || new URL(url).origin !== new URL(channel.baseUrl).origin) return {};
  const key = keyByFingerprint(channel.keys, task.key_fingerprint);
  return key === undefined ? {} : mjSecretHeaders(key);
}
