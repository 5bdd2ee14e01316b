import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { keyByFingerprint } from '../../tasks/key-fingerprint.js';
import { findOriginTask } from '../task-submit/find-origin-task.js';
import { runTaskSubmit, type TaskSubmitServices } from '../task-submit/run-task-submit.js';
import { requireObjectBody } from '../validate-body.js';
import { sendSunoSubmit } from './send-suno-submit.js';
import { readSunoRequest } from './suno-request.js';

const sunoChannelTypes: ReadonlySet<string> = new Set(['suno']);

/**
 * `POST /suno/submit/{music|lyrics}` (protocols.md §2): a music or lyrics task on a `suno` channel (a
 * Suno-API proxy), priced per call as `suno_music` / `suno_lyrics`, charged at submit and refunded if it
 * fails. The client is answered `{code: "success", message: "", data: "<public task id>"}`. A
 * continuation (`task_id`) names one of the caller's own Suno tasks by its public id: it goes to the
 * channel and key that made it, with the proxy's id in its place.
 */
export function runSunoSubmit(services: TaskSubmitServices, action: string, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  return services.relay.inFlight.track(async () => {
    const suno = readSunoRequest(action, requireObjectBody(request.body));
    const origin = typeof suno.upstreamBody.task_id === 'string' && suno.upstreamBody.task_id !== '' ? await findOriginTask(services, request, suno.upstreamBody.task_id, 'suno', 'task_id') : undefined;
    const upstreamBody = origin === undefined ? suno.upstreamBody : { ...suno.upstreamBody, task_id: origin.upstream_id };
    await runTaskSubmit(services, request, reply, {
      ...(origin === undefined ? {} : { pinnedChannelId: origin.channel_id ?? undefined, keyFor: (channel: ChannelRecord) => keyByFingerprint(channel.keys, origin.key_fingerprint) }),
      kind: 'suno',
      model: suno.model,
      prompt: suno.prompt,
      price: undefined,
      channelTypes: sunoChannelTypes,
      logStyle: `suno-${suno.action.toLowerCase()}`,
      properties: { action: suno.action },
      send: (channel, key, _upstreamModel, call) => sendSunoSubmit(services.relay, channel, key, suno.action, upstreamBody, call),
      answer: (task) => ({ code: 'success', message: '', data: task.public_id }),
      // The proxy's own errors name its ids and accounts: the client gets the gateway's envelope.
      errorPassthrough: () => false,
    });
  });
}

