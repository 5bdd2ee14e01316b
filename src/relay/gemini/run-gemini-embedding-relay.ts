import type { FastifyReply, FastifyRequest } from 'fastify';
import { isRecord } from '../../convert/shared/is-record.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import { estimatePromptTokens } from '../estimate-prompt-tokens.js';
import { mappingLoopFailure } from '../mapping-loop-failure.js';
import { attemptOpenaiUpstream } from '../openai/attempt-openai-upstream.js';
import { runRelayEnvelope } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import type { UsageMeter } from '../usage-meter.js';
import { camelizeGeminiBody } from './camelize-gemini-body.js';
import { geminiEmbeddingFailure } from './gemini-embedding-failure.js';
import { geminiEmbeddingBody, geminiEmbeddingChannelTypes, readGeminiEmbeddingText, type GeminiEmbeddingAction } from './gemini-embedding-request.js';

/**
 * Gemini native `:embedContent` and `:batchEmbedContents`, served by Gemini channels: the body relayed as
 * sent (with the model mapped), the answer as received. Gemini reports no usage for embeddings, so the
 * charge is the embedded text counted locally at the input price, as for OpenAI embeddings without usage.
 * A 2xx error document is the channel's failure, as on `generateContent`: tried elsewhere, and free.
 */
export function runGeminiEmbeddingRelay(services: RelayServices, action: GeminiEmbeddingAction, model: string, body: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  // Read in camelCase (`inline_data` is media too); the client's own bytes and spelling are what is sent.
  const prompt = readGeminiEmbeddingText(action, camelizeGeminiBody(body), model);
  return services.inFlight.track(() =>
    runRelayEnvelope(
      services,
      request,
      reply,
      { model, stream: false, ...estimatePromptTokens(prompt), maxOutputTokens: 0, channelTypes: geminiEmbeddingChannelTypes, logStyle: `gemini-${action}`, warnings: [] },
      async (channel, key, tools) => {
        const mapping = resolveModelMapping(channel.modelMapping, model);
        if (!mapping.ok) return mappingLoopFailure(channel.id, mapping.loop);
        tools.setUpstreamModel(mapping.upstreamModel);
        return attemptOpenaiUpstream({
          services,
          upstreamPath: `/v1beta/models/${encodeURIComponent(mapping.upstreamModel)}:${action}`,
          upstreamHeaders: { 'x-goog-api-key': key, 'content-type': 'application/json', accept: 'application/json' },
          channel,
          key,
          upstreamBody: geminiEmbeddingBody(action, body, request.rawBody, model, mapping.upstreamModel),
          reply,
          meter: tools.meter,
          signal: tools.signal,
          clientHeaders: tools.clientHeaders(channel),
          // A 2xx error document (a chained gateway's failure) served nothing: the next channel is tried.
          channelFailureIn: (answer) => geminiEmbeddingFailure(answer, key),
          readWholeAnswer: noUsageReported,
        });
      },
      (_channel, json) => isRecord(json) && isRecord(json.error),
    ),
  );
}

/** Embeddings carry no usage: settlement counts the embedded text (the prompt) locally. */
function noUsageReported(_answer: Buffer, _meter: UsageMeter): void {}
