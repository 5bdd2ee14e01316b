import type { FastifyReply, FastifyRequest } from 'fastify';
import { runTaskSubmit, type TaskSubmitServices } from '../task-submit/run-task-submit.js';
import { requireObjectBody } from '../validate-body.js';
import { sendSunoSubmit } from './send-suno-submit.js';
import { readSunoRequest } from './suno-request.js';

const sunoChannelTypes: ReadonlySet<string> = new Set(['suno']);

/**
 * `POST /suno/submit/{music|lyrics}` (protocols.md §2): a music or lyrics task on a `suno` channel (a
 * Suno-API proxy), priced per call as `suno_music` / `suno_lyrics`, charged at submit and refunded if it
 * fails. The client is answered `{code: "success", message: "", data: "<public task id>"}`.
 */
export function runSunoSubmit(services: TaskSubmitServices, action: string, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  return services.relay.inFlight.track(async () => {
    const suno = readSunoRequest(action, requireObjectBody(request.body));
    await runTaskSubmit(services, request, reply, {
      kind: 'suno',
      model: suno.model,
      prompt: suno.prompt,
      price: undefined,
      channelTypes: sunoChannelTypes,
      logStyle: `suno-${suno.action.toLowerCase()}`,
      properties: { action: suno.action },
      send: (channel, key, _upstreamModel, signal) => sendSunoSubmit(services.relay, channel, key, suno.action, suno.upstreamBody, signal),
      answer: (task) => ({ code: 'success', message: '', data: task.public_id }),
      // The proxy's own errors name its ids and accounts: the client gets the gateway's envelope.
      errorPassthrough: () => false,
    });
  });
}
