import type { FastifyReply, FastifyRequest } from 'fastify';
import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { admitFreeRequest } from '../admit-free-request.js';
import { currentCaller } from '../current-caller.js';
import { authorizeModel } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import { requirePrice } from '../require-price.js';
import { buildGeminiInbound } from '../text/build-text-inbound.js';
import { camelizeGeminiBody } from './camelize-gemini-body.js';

/**
 * Gemini native `:countTokens`, counted here with the exact tokenizer (o200k, not Gemini's own): no upstream
 * call, nothing charged, no log row. Only for a model the key may use, as `:generateContent` would answer
 * (403, 400 unknown or unpriced, 503), and one request against the rpm windows as the free routes are
 * (a 429 when one is full, before counting): the exact count of a large body is CPU time on the event
 * loop, which a key must not be able to ask for without end. No tokens window is charged or consulted.
 */
export async function runGeminiCountTokens(services: RelayServices, model: string, body: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  // Read again now that the body has arrived: a key switched off while it uploaded is refused here.
  const caller = currentCaller(services, request, services.now());
  authorizeModel(services, caller, { group: caller.group, model, pinnedChannelId: caller.pinnedChannelId });
  requirePrice(services.catalog.snapshot, model);
  // Proto JSON: the wrapper may be spelled `generate_content_request`, but not both ways at once.
  const camelized = camelizeGeminiBody(body);
  const wrapped = isRecord(camelized.generateContentRequest);
  // Google: "Models/Contents and generateContentRequests are mutually exclusive. You can either send Model +
  // Contents or a generateContentRequest, but never both" (ai.google.dev/api/tokens, CountTokensRequest).
  // Counting one of them would answer for a prompt the client did not mean; an empty list is proto3's unset.
  if (wrapped && camelized.contents !== undefined && camelized.contents !== null && !(Array.isArray(camelized.contents) && camelized.contents.length === 0)) {
    throw new GatewayError('invalid_request', 'contents and generateContentRequest are mutually exclusive: send the prompt in one of them, never both', { param: 'contents' });
  }
  const contents = wrapped ? (camelized.generateContentRequest as Record<string, unknown>) : camelized;
  const inbound = buildGeminiInbound(contents, undefined, model, false, 'sse');
  const admission = await admitFreeRequest(services, request);
  const totalTokens = await inbound.countPromptTokens();
  return reply.headers({ 'x-request-id': request.id, ...admission.rateHeaders }).send({ totalTokens });
}
