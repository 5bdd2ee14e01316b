import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import { estimatePromptTokens } from '../estimate-prompt-tokens.js';
import { mappingLoopFailure } from '../mapping-loop-failure.js';
import { runRelayEnvelope } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import { invalidRequestFrom, requireObjectBody } from '../validate-body.js';
import { continuationIdsOf, withContext } from '../responses/continued-response.js';
import { recallAndClaimContinuation, type ClaimedContinuation } from '../conversations/recall-and-claim-continuation.js';
import { keyFingerprint } from '../../tasks/key-fingerprint.js';
import { attemptOpenaiUpstream } from './attempt-openai-upstream.js';
import { buildUpstreamBody } from './build-upstream-body.js';
import type { OpenaiEndpoint } from './openai-endpoints.js';

const openaiChannelTypes: ReadonlySet<string> = new Set(['openai']);

/**
 * OpenAI-style requests that only OpenAI-compatible channels serve (completions, embeddings,
 * moderations, rerank, responses compaction): validated, then relayed byte for byte with model mapping.
 */
export function runOpenaiRelay(services: RelayServices, endpoint: OpenaiEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return services.inFlight.track(() => relayOpenaiRequest(services, endpoint, request, reply));
}

async function relayOpenaiRequest(services: RelayServices, endpoint: OpenaiEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = requireObjectBody(request.body);
  const parsed = endpoint.schema.safeParse(body);
  if (!parsed.success) throw invalidRequestFrom(parsed.error.issues[0]);
  // An endpoint whose upstream API has no model (web reader, search) is routed, priced and limited by its
  // own model name: a body naming another would buy the service at that model's price.
  const baseModel = endpoint.forwardsModel !== false && typeof body.model === 'string' ? body.model : (endpoint.defaultModel ?? '');
  // Compaction is routed and priced under its own name (`gpt-5-openai-compact`), as new-api does.
  const model = `${baseModel}${endpoint.billingSuffix ?? ''}`;
  const stream = endpoint.streams && body.stream === true;
  const clientWantsUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  // Compaction of a stored response reads it back: on the channel that holds it, with its context reserved.
  // An unknown conversation let through is claimed before any upstream call, as a /v1/responses turn claims it.
  const userId = request.caller?.user.id ?? 0;
  const claimed: ClaimedContinuation | undefined = endpoint.name === 'responses-compact' ? await recallAndClaimContinuation(services, continuationIdsOf(body), userId) : undefined;
  const continued = claimed?.known;
  const prompt = withContext(estimatePromptTokens(endpoint.promptText(body)), continued?.contextTokens ?? 0);

  const relayed = runRelayEnvelope(
    services,
    request,
    reply,
    {
      model,
      stream,
      estimatedPromptTokens: prompt.estimatedPromptTokens,
      countPromptTokens: prompt.countPromptTokens,
      promptImageTokens: prompt.promptImageTokens,
      preferredChannelId: continued?.channelId,
      preferredKeyFingerprint: continued?.keyFingerprint,
      maxOutputTokens: endpoint.maxOutputTokens(body),
      channelTypes: openaiChannelTypes,
      logStyle: endpoint.forwardsModel === false ? endpoint.name : `openai-${endpoint.name}`,
      warnings: [],
    },
    async (channel, key, tools) => {
      const mapping = resolveModelMapping(channel.modelMapping, baseModel);
      if (!mapping.ok) return mappingLoopFailure(channel.id, mapping.loop);
      tools.setUpstreamModel(mapping.upstreamModel);
      const askForStreamUsage = stream && !clientWantsUsage && channel.settings.stream_usage !== false;
      const outcome = await attemptOpenaiUpstream({
        services,
        upstreamPath: endpoint.upstreamPath,
        channel,
        key,
        // A request without a model (moderations) gets the default, which the channel's model_mapping may change.
        upstreamBody: buildUpstreamBody(request.rawBody, body, endpoint.forwardsModel === false ? undefined : mapping.upstreamModel, askForStreamUsage, endpoint.streams, endpoint.defaultOutputLimit?.(body)),
        stream,
        clientWantsUsage,
        singleChoice: (endpoint.choicesMade?.(body) ?? 1) === 1,
        reply,
        meter: tools.meter,
        signal: tools.signal,
        clientHeaders: tools.clientHeaders(channel),
        readWholeAnswer: endpoint.readWholeAnswer,
        billsOutput: endpoint.billsOutput,
        echoedPrompt: endpoint.echoedPrompt?.(body),
        channelFailureIn: endpoint.channelFailureIn,
      });
      if (outcome.kind === 'served') claimed?.claim.answered({ userId, channelId: channel.id, keyFingerprint: keyFingerprint(key) });
      return outcome;
    },
    (_channel, json) => isRecord(json) && isRecord(json.error),
  );
  // A claim of an unknown conversation that got no answer is left to the next request that does.
  await (claimed === undefined ? relayed : relayed.finally(() => claimed.claim.releaseIfUnanswered()));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}
