import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { openaiEndpoints } from '../../relay/openai/openai-endpoints.js';
import { buildGeminiInbound, buildParsedInbound } from '../../relay/text/build-text-inbound.js';
import { runChatRelay } from '../../relay/text/run-chat-relay.js';
import { runOpenaiRelay } from '../../relay/openai/run-openai-relay.js';
import { runTextRelay } from '../../relay/text/run-text-relay.js';
import { runAnthropicCountTokens } from '../../relay/text/run-anthropic-count-tokens.js';
import { runResponsesInputTokens } from '../../relay/text/run-responses-input-tokens.js';
import { runGeminiCountTokens } from '../../relay/gemini/run-gemini-count-tokens.js';
import { runGeminiEmbeddingRelay } from '../../relay/gemini/run-gemini-embedding-relay.js';
import { requireObjectBody as requireObject } from '../../relay/validate-body.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { refreshCaller } from '../refresh-caller.js';

/**
 * Text generation in every style (issue #5): Chat Completions, Anthropic Messages, Gemini native. Every
 * answer here sets x-request-id itself (relay client headers, sendGatewayError), hence `setsRequestId`.
 * Each handler first reads its caller again, the body now complete (refresh-caller.ts).
 */
export async function textRelayRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const track = (work: () => Promise<void>) => services.relay.inFlight.track(work);
  const openaiKeyed = { config: { errorStyle: 'openai' as const, setsRequestId: true }, onRequest: authenticateCaller(services, 'openai') };
  const anthropicKeyed = { config: { errorStyle: 'anthropic' as const, setsRequestId: true }, onRequest: authenticateCaller(services, 'anthropic') };

  app.post('/v1/chat/completions', openaiKeyed, (request, reply) => {
    refreshCaller(services, request);
    return runChatRelay(services.relay, request, reply);
  });

  app.post('/v1/messages', anthropicKeyed, (request, reply) => {
    refreshCaller(services, request);
    const inbound = buildParsedInbound('anthropic-messages', requireObject(request.body), request.rawBody);
    return track(() => runTextRelay(services.relay, inbound, request, reply));
  });

  // Anthropic's token count: the channel's own count on an Anthropic channel, else the gateway's; never charged.
  app.post('/v1/messages/count_tokens', anthropicKeyed, (request, reply) => {
    refreshCaller(services, request);
    const body = requireObject(request.body);
    return track(() => runAnthropicCountTokens(services.relay, body, request, reply));
  });

  app.post('/v1/responses', openaiKeyed, (request, reply) => {
    refreshCaller(services, request);
    const inbound = buildParsedInbound('openai-responses', requireObject(request.body), request.rawBody);
    return track(() => runTextRelay(services.relay, inbound, request, reply));
  });

  // OpenAI's input token count: counted here on every channel type, never charged (run-responses-input-tokens.ts).
  app.post('/v1/responses/input_tokens', openaiKeyed, (request, reply) => {
    refreshCaller(services, request);
    const body = requireObject(request.body);
    return track(() => runResponsesInputTokens(services.relay, body, request, reply));
  });

  // Compaction is not streamed and only OpenAI Responses upstreams perform it: bytes through, priced apart.
  app.post('/v1/responses/compact', openaiKeyed, (request, reply) => {
    refreshCaller(services, request);
    return runOpenaiRelay(services.relay, openaiEndpoints['responses-compact'], request, reply);
  });

  // Gemini paths carry `model:action` in one segment (a literal colon is not a Fastify parameter).
  const gemini = (request: FastifyRequest, reply: Parameters<typeof runTextRelay>[3]) => {
    refreshCaller(services, request);
    const target = (request.params as Record<string, string>)['*'] ?? '';
    const separator = target.lastIndexOf(':');
    if (separator <= 0) throw new GatewayError('route_not_found', `Invalid URL (${request.method} ${request.url.split('?', 1)[0]})`);
    // The router has decoded the path once already: a second decode would read `a%252Fb` as `a/b`.
    const model = target.slice(0, separator).replace(/^models\//, '');
    const action = target.slice(separator + 1);
    const body = requireObject(request.body);
    switch (action) {
      case 'generateContent':
      case 'streamGenerateContent': {
        const stream = action === 'streamGenerateContent';
        const framing = (request.query as Record<string, unknown>).alt === 'sse' ? 'sse' : 'json-array';
        const inbound = buildGeminiInbound(body, request.rawBody, model, stream, framing);
        return track(() => runTextRelay(services.relay, inbound, request, reply));
      }
      case 'countTokens':
        // Counted locally, never charged; one request against the rpm windows (run-gemini-count-tokens.ts).
        return runGeminiCountTokens(services.relay, model, body, request, reply);
      case 'embedContent':
      case 'batchEmbedContents':
        return runGeminiEmbeddingRelay(services.relay, action, model, body, request, reply);
      default:
        throw new GatewayError('not_implemented', `Action ${action} is not supported by this gateway.`);
    }
  };
  const geminiRoute = { config: { errorStyle: 'gemini' as const, setsRequestId: true }, onRequest: authenticateCaller(services, 'gemini') };
  app.post('/v1beta/models/*', geminiRoute, gemini);
  app.post('/v1/models/*', geminiRoute, gemini);
}

