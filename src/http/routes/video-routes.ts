import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { admitFreeRequest } from '../../relay/admit-free-request.js';
import { createAsset } from '../../relay/video/create-asset.js';
import { getAsset } from '../../relay/video/get-asset.js';
import { runVideoRemix } from '../../relay/video/run-video-remix.js';
import type { TaskSubmitServices } from '../../relay/task-submit/run-task-submit.js';
import { contentUrlFor, runVideoSubmit } from '../../relay/video/run-video-submit.js';
import type { TaskRow } from '../../storage/tasks-repository.js';
import { presentTaskDto, presentVideoTask } from '../../tasks/present-video-task.js';
import { publicTaskIdPattern } from '../../tasks/public-task-id.js';
import { videoContentSource } from '../../tasks/video-content-source.js';
import type { AppServices } from '../app-services.js';
import { corsResponseHeaders } from '../cors.js';
import { relayDownload } from '../relay-download.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { refreshCaller } from '../refresh-caller.js';

/** OpenAI's content variants (protocols.md §4). */
const contentVariants = new Set(['video', 'thumbnail', 'spritesheet']);

/**
 * Spec §4.9: video tasks. Submits go to OpenAI-style video channels (run-video-submit.ts); queries read the
 * task row (the poll loop keeps it current, src/tasks/task-engine.ts) and never call an upstream; the
 * content route streams a completed video from the channel that made it, chunk by chunk. A caller sees
 * only its own tasks (another's id is a 404, as a missing one is).
 */
export async function videoRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const submit: TaskSubmitServices = { relay: services.relay, tasks: services.repositories.tasks, pollIntervalMs: services.environment.taskPollIntervalSeconds * 1000 };
  const options = { config: { errorStyle: 'openai' as const }, onRequest: authenticateCaller(services, 'openai') };

  app.post('/v1/videos', options, (request, reply) => {
    refreshCaller(services, request);
    return runVideoSubmit(submit, services.repositories.assetOwners, 'videos', request, reply);
  });
  app.post('/v1/video/generations', options, (request, reply) => {
    refreshCaller(services, request);
    return runVideoSubmit(submit, services.repositories.assetOwners, 'generations', request, reply);
  });
  // Seedance 2's reference assets, relayed to the caller's asset channels (create-asset.ts, get-asset.ts).
  app.post('/api/asset/createMedia', options, (request, reply) => {
    refreshCaller(services, request);
    return createAsset(services.relay, services.repositories.assetOwners, request, reply);
  });
  app.get<{ Querystring: { id?: unknown } }>('/api/asset/get', options, (request, reply) => getAsset(services.relay, services.repositories.assetOwners, request, reply));

  // Kling's native routes (protocols.md §3.1): the native body on any video channel (a Kling channel sends
  // it on as it is), the OpenAI video object back; the query answers new-api's `{code, data}` wrapper.
  const klingOptions = { config: { errorStyle: 'task' as const }, onRequest: options.onRequest };
  for (const action of ['text2video', 'image2video']) {
    const route = action === 'image2video' ? 'kling-image2video' : 'kling';
    app.post(`/kling/v1/videos/${action}`, klingOptions, (request, reply) => {
      refreshCaller(services, request);
      return runVideoSubmit(submit, services.repositories.assetOwners, route, request, reply);
    });
    app.get<{ Params: { id: string } }>(`/kling/v1/videos/${action}/:id`, klingOptions, async (request, reply) => {
      const task = await callersTask(services, request, request.params.id);
      return reply.headers(corsResponseHeaders).send(presentTaskDto(task, contentUrlFor(request, task.public_id)));
    });
  }

  app.post<{ Params: { id: string } }>('/v1/videos/:id/remix', options, async (request, reply) => {
    refreshCaller(services, request);
    const origin = await callersTask(services, request, request.params.id);
    await runVideoRemix(submit, origin, request, reply);
  });
  app.get<{ Params: { id: string } }>('/v1/videos/:id', options, async (request, reply) => {
    const task = await callersTask(services, request, request.params.id);
    return reply.headers(corsResponseHeaders).send(presentVideoTask(task, contentUrlFor(request, task.public_id)));
  });
  app.get<{ Params: { id: string } }>('/v1/video/generations/:id', options, async (request, reply) => {
    const task = await callersTask(services, request, request.params.id);
    return reply.headers(corsResponseHeaders).send(presentTaskDto(task, contentUrlFor(request, task.public_id)));
  });
  app.get<{ Params: { id: string }; Querystring: { variant?: unknown } }>('/v1/videos/:id/content', options, async (request, reply) => {
    const variant = request.query.variant;
    if (variant !== undefined && (typeof variant !== 'string' || !contentVariants.has(variant))) {
      throw new GatewayError('invalid_request', `Invalid 'variant': must be one of 'video', 'thumbnail', 'spritesheet'.`, { param: 'variant' });
    }
    const task = await callersTask(services, request, request.params.id);
    if (task.status !== 'success') throw new GatewayError('invalid_request', `Task is not completed yet, current status: ${task.status}`);
    // Free, but it downloads from the operator's upstream account: one request against the rpm windows.
    const admission = await admitFreeRequest(services.relay, request);
    await streamVideoContent(services, task, typeof variant === 'string' ? variant : undefined, request, reply, admission.rateHeaders);
  });
}

async function callersTask(services: AppServices, request: FastifyRequest, publicId: string): Promise<TaskRow> {
  const caller = request.caller;
  if (caller === undefined) throw new Error('video routes run after authentication');
  // Public ids are `task_` + 32 letters and digits: anything else names no task, and is not sent to the database.
  const task = publicTaskIdPattern.test(publicId) ? await services.repositories.tasks.findForUser(publicId, caller.user.id) : undefined;
  if (task === undefined || task.kind !== 'video') throw new GatewayError('not_found', `Task not found: ${publicId.slice(0, 64)}`);
  return task;
}

/** The video from where its channel keeps it (video-content-source.ts), relayed as it arrives. */
async function streamVideoContent(services: AppServices, task: TaskRow, variant: string | undefined, request: FastifyRequest, reply: FastifyReply, rateHeaders: Record<string, string>): Promise<void> {
  const source = videoContentSource(services.catalog.snapshot.channels, task, variant);
  if (!source.ok) throw new GatewayError(source.status === 400 ? 'invalid_request' : 'upstream_error', source.message);
  await relayDownload(services.relay, { url: source.url, headers: source.headers, ...contentTypes(variant), what: 'video content' }, request, reply, rateHeaders);
}

/** A video is sent as `video/*`, a thumbnail or spritesheet as `image/*` (else as bytes): never as a page. */
function contentTypes(variant: string | undefined): { defaultType: string; allowedType: string } {
  return variant === undefined || variant === 'video' ? { defaultType: 'video/mp4', allowedType: 'video/' } : { defaultType: 'application/octet-stream', allowedType: 'image/' };
}
