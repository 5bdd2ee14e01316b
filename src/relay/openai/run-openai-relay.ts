import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodIssue } from 'zod';
import { tokenAllowsModel } from '../../auth/authorize-model.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import { candidateChannels } from '../../routing/select-channel.js';
import { admitRequest } from '../admit-request.js';
import { buildLogRow } from '../build-log-row.js';
import { countTextTokens } from '../count-tokens.js';
import type { RelayServices } from '../relay-services.js';
import { runFailover, type FailoverResult } from '../run-failover.js';
import { settleRequest } from '../settle-request.js';
import { UsageMeter } from '../usage-meter.js';
import { attemptOpenaiUpstream, type OpenaiServed } from './attempt-openai-upstream.js';
import { buildUpstreamBody } from './build-upstream-body.js';
import type { OpenaiEndpoint } from './openai-endpoints.js';

/**
 * The pipeline for OpenAI-style requests to OpenAI-compatible channels (issue #3):
 * validate → authorize model → admit (price, rate limit, reserve) → failover over channels → relay →
 * settle → log. Settlement and the log row happen in `finally`, so no ending can lose a charge.
 */
export function runOpenaiRelay(services: RelayServices, endpoint: OpenaiEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return services.inFlight.track(() => relayOpenaiRequest(services, endpoint, request, reply));
}

async function relayOpenaiRequest(services: RelayServices, endpoint: OpenaiEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const caller = request.caller;
  if (caller === undefined) throw new Error('relay routes run after authentication');
  const startedAt = services.now();
  const body = requireObject(request.body);
  const parsed = endpoint.schema.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error.issues[0]);

  const model = typeof body.model === 'string' ? body.model : (endpoint.defaultModel ?? '');
  const stream = endpoint.streams && body.stream === true;
  if (!tokenAllowsModel(caller, model)) throw new GatewayError('model_not_allowed', `This API key may not use model ${model}.`, { param: 'model' });
  ensureSomeChannelServes(services, model, caller.group, caller.pinnedChannelId);

  const prompt = endpoint.promptText(body);
  const admission = await admitRequest(services, {
    requestId: request.id,
    caller,
    model,
    promptTokens: countTextTokens(prompt.text) + prompt.extraTokens,
    maxOutputTokens: endpoint.maxOutputTokens(body),
    ip: request.ip,
  });

  const meter = new UsageMeter();
  const abort = new AbortController();
  const onClientClose = () => {
    if (reply.raw.writableFinished) return;
    meter.clientAborted = true;
    abort.abort();
  };
  reply.raw.on('close', onClientClose);
  const clientWantsUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  let upstreamModel: string | undefined;
  let upstreamAnswered = false;
  let attemptNumber = 0;
  let result: FailoverResult<OpenaiServed> | undefined;
  let failure: GatewayError | undefined;

  try {
    result = await runFailover(services, {
      query: { group: caller.group, model, pinnedChannelId: caller.pinnedChannelId },
      retryTimes: services.catalog.snapshot.settings.retryTimes,
      shouldStop: () => meter.clientAborted,
      attempt: async (channel, key) => {
        attemptNumber += 1;
        const mapping = resolveModelMapping(channel.modelMapping, model);
        if (!mapping.ok) return { kind: 'failed', failure: { kind: 'connection', message: `model_mapping of channel ${channel.id} loops: ${mapping.loop.join(' → ')}` } };
        upstreamModel = mapping.upstreamModel;
        const askForStreamUsage = stream && !clientWantsUsage && channel.settings.stream_usage !== false;
        const outcome = await attemptOpenaiUpstream({
          services,
          endpoint,
          channel,
          key,
          // A request without a model (moderations) gets the default, which the channel's model_mapping may change.
          upstreamBody: buildUpstreamBody(request.rawBody, body, upstreamModel, askForStreamUsage),
          stream,
          clientWantsUsage,
          reply,
          meter,
          signal: abort.signal,
          clientHeaders: { ...admission.rateHeaders, 'x-request-id': request.id, 'x-relay-channel-id': String(channel.id), 'x-relay-attempts': String(attemptNumber) },
        });
        if (outcome.kind === 'served') upstreamAnswered = true;
        return outcome;
      },
    });
    if (result.kind !== 'served' && !meter.clientAborted) failure = sendFailure(result, reply, request.id);
  } catch (error) {
    failure = error instanceof GatewayError ? error : new GatewayError('internal_error', 'Internal server error.', { cause: error });
    if (!meter.committed && !meter.clientAborted) throw failure;
  } finally {
    reply.raw.off('close', onClientClose);
    const channelId = result !== undefined && result.kind !== 'no_channel' ? result.channel.id : undefined;
    const settlement = await settleRequest(services, { requestId: request.id, admission, meter, upstreamAnswered, channelId: result?.kind === 'served' ? channelId : undefined });
    services.logWriter.write(
      buildLogRow({
        requestId: request.id,
        startedAt,
        finishedAt: services.now(),
        firstTokenAt: meter.firstTokenAt,
        caller,
        channelId,
        model,
        upstreamModel,
        style: `openai-${endpoint.name}`,
        path: request.url.split('?', 1)[0] ?? request.url,
        stream,
        status: meter.clientAborted ? 499 : result?.kind === 'served' ? result.value.status : (failure?.status ?? 500),
        usage: settlement.usage,
        usageSource: settlement.usageSource,
        charged: settlement.charged,
        attempts: result !== undefined && result.kind !== 'no_channel' ? result.attempts : [],
        warnings: admission.warnings,
        ip: request.ip,
        error: meter.clientAborted ? 'client disconnected' : (meter.interruption ?? failure?.message),
      }),
    );
  }
}

/** Failed requests answer with the upstream's own OpenAI error body when it sent one, else ours. */
function sendFailure(result: Exclude<FailoverResult<OpenaiServed>, { kind: 'served' }>, reply: FastifyReply, requestId: string): GatewayError {
  if (result.kind === 'no_channel') throw new GatewayError('no_available_channel', 'No channel is available for this model right now.');
  const { failure, errorBody } = result;
  const attempts = String(result.attempts.length);
  if (failure.kind === 'status') {
    const error = new GatewayError('upstream_error', failure.message, { status: failure.status });
    const json = errorBody?.json;
    if (isRecord(json) && isRecord(json.error)) {
      void reply.code(failure.status).headers({ 'x-relay-attempts': attempts, 'x-request-id': requestId }).send(json);
      return error;
    }
    throw new GatewayError('upstream_error', failure.message, { status: failure.status, headers: { 'x-relay-attempts': attempts } });
  }
  if (failure.kind === 'timeout') throw new GatewayError('upstream_timeout', failure.message, { headers: { 'x-relay-attempts': attempts } });
  throw new GatewayError('upstream_error', failure.message, { headers: { 'x-relay-attempts': attempts } });
}

function ensureSomeChannelServes(services: RelayServices, model: string, group: string, pinnedChannelId: number | undefined): void {
  const channels = services.catalog.snapshot.channels;
  if (candidateChannels(channels, { group, model, pinnedChannelId }).length > 0) return;
  if (channels.some((channel) => channel.models.includes(model))) {
    throw new GatewayError('no_available_channel', `No available channel for model ${model} under group ${group}.`);
  }
  throw new GatewayError('model_not_found', `The model \`${model}\` does not exist or you do not have access to it.`, { param: 'model' });
}

function requireObject(body: unknown): Record<string, unknown> {
  if (body === undefined) throw new GatewayError('invalid_json', 'Request body is empty; a JSON object is required.');
  if (!isRecord(body) || Array.isArray(body)) throw new GatewayError('invalid_request', 'Request body must be a JSON object.');
  return body;
}

function invalidRequest(issue: ZodIssue | undefined): GatewayError {
  const param = issue?.path.join('.') ?? '';
  const message = issue === undefined ? 'Invalid request body.' : issue.code === 'invalid_type' && issue.received === 'undefined' ? `Missing required parameter: '${param}'.` : `Invalid '${param}': ${issue.message}`;
  return new GatewayError('invalid_request', message, param === '' ? {} : { param });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}
