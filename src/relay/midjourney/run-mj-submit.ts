import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import type { TaskRow } from '../../storage/tasks-repository.js';
import { keyByFingerprint } from '../../tasks/key-fingerprint.js';
import { presentMjSubmitAnswer } from '../../tasks/present-mj-task.js';
import { findOriginTask } from '../task-submit/find-origin-task.js';
import { runTaskSubmit, type TaskSubmitPlan, type TaskSubmitServices } from '../task-submit/run-task-submit.js';
import { requireObjectBody } from '../validate-body.js';
import { keepsModalCode } from './mj-actions.js';
import { readMjSubmit, type MjSubmit, type MjSubmitRoute } from './mj-request.js';
import { sendMjSubmit } from './send-mj-submit.js';

export const mjChannelTypes: ReadonlySet<string> = new Set(['midjourney']);

/** Kept on a row: enough of the prompt to show it before the proxy reports the task. */
const maxStoredPrompt = 4000;

/**
 * `POST /mj/submit/*` and `/mj/insight-face/swap` (spec §4.8, protocols.md §1): a task on a `midjourney`
 * channel (a Midjourney-proxy), priced per call as `mj_<action>` (`swap_face`), charged when the proxy
 * takes it and refunded if it fails. A submit that continues one of the caller's tasks (a button, a
 * modal, a video of an image) goes to the channel and key that made it, with the proxy's id in place of
 * the public one. The client is answered the proxy's `{code, description, result, properties}` with the
 * public task id as `result`.
 */
export function runMjSubmit(services: TaskSubmitServices, route: MjSubmitRoute, mode: string | undefined, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  return services.relay.inFlight.track(async () => {
    const submit = readMjSubmit(route, requireObjectBody(request.body));
    const origin = submit.origin === undefined ? undefined : await originTask(services, request, submit);
    const upstreamBody = origin === undefined ? submit.upstreamBody : withUpstreamId(submit, origin);
    const plan: TaskSubmitPlan = {
      kind: 'mj',
      model: submit.model,
      prompt: submit.prompt,
      price: undefined,
      channelTypes: mjChannelTypes,
      logStyle: `mj-${submit.action.toLowerCase()}`,
      properties: {
        ...submit.properties,
        ...(submit.prompt === '' ? {} : { prompt: submit.prompt.slice(0, maxStoredPrompt) }),
        ...(mode === undefined ? {} : { mode }),
        ...(origin === undefined ? {} : { origin: origin.public_id, originUpstreamId: origin.upstream_id }),
      },
      send: (channel, key, _upstreamModel, call) => sendMjSubmit(services.relay, channel, key, submit.action, submit.upstreamPath, upstreamBody, call),
      answer: (task) => presentMjSubmitAnswer(task, keepsModalCode(submit.action)),
      // The proxy's own errors name its accounts and ids: the client gets the gateway's envelope.
      errorPassthrough: () => false,
      // Inpaint and CustomZoom only open a modal: the modal that completes them is what is billed.
      free: keepsModalCode(submit.action),
    };
    if (origin !== undefined) {
      plan.pinnedChannelId = origin.channel_id ?? undefined;
      plan.keyFor = (channel) => keyByFingerprint(channel.keys, origin.key_fingerprint);
    }
    await runTaskSubmit(services, request, reply, plan);
  });
}

/**
 * The caller's task a submit continues: it must be the caller's own MJ task, made by a channel still
 * configured, and finished (a button on its image) or still open (the modal it waits for).
 */
async function originTask(services: TaskSubmitServices, request: FastifyRequest, submit: MjSubmit): Promise<TaskRow> {
  const origin = submit.origin;
  if (origin === undefined) throw new Error('an origin is looked up for a continuation');
  const task = await findOriginTask(services, request, origin.publicId, 'mj', 'taskId');
  if (origin.needs === 'success' && task.status !== 'success') throw new GatewayError('invalid_request', `task_status_not_success: task ${task.public_id} is ${task.status}.`, { param: 'taskId' });
  if (origin.needs === 'open' && (task.status === 'success' || task.status === 'failure')) throw new GatewayError('invalid_request', `task ${task.public_id} is finished; it has no modal to submit.`, { param: 'taskId' });
  return task;
}

/** The body sent upstream with the origin's public id replaced by the proxy's. */
function withUpstreamId(submit: MjSubmit, origin: TaskRow): Record<string, unknown> {
  const upstreamId = origin.upstream_id ?? '';
  if (submit.route === 'simple-change') {
    const content = typeof submit.upstreamBody.content === 'string' ? submit.upstreamBody.content : '';
    return { ...submit.upstreamBody, content: content.replace(origin.public_id, upstreamId) };
  }
  return { ...submit.upstreamBody, taskId: upstreamId };
}
