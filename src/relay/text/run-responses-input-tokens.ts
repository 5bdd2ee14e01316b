import type { FastifyReply, FastifyRequest } from 'fastify';
import { admitFreeRequest } from '../admit-free-request.js';
import { currentCaller } from '../current-caller.js';
import { authorizeModel } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import { requirePrice } from '../require-price.js';
import { buildParsedInbound } from './build-text-inbound.js';

/**
 * `POST /v1/responses/input_tokens` (OpenAI's `responses.inputTokens.count`): the body a Responses request
 * would send, counted here with the count a Responses request's settlement uses (exact o200k, OpenAI's own
 * tokenizer; 4 per message, 1000 per image), answered `{"object":"response.input_tokens","input_tokens":N}`.
 * No upstream call, not even on an OpenAI Responses channel: many `openai` channels are compatible servers
 * without this route, and the local count already uses OpenAI's tokenizer (Anthropic's count goes to an
 * Anthropic channel because o200k is not Claude's tokenizer). Checked as `/v1/responses` checks a body and
 * its model (400, 403, 400 unknown or unpriced, 503), never charged, no log row, and one request against
 * the rpm windows as `:countTokens` is (a 429 when one is full, before counting): the exact count of a
 * large body is CPU time on the event loop, which a key must not be able to ask for without end.
 */
export async function runResponsesInputTokens(services: RelayServices, body: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  // Read again now that the body has arrived: a key switched off while it uploaded is refused here.
  const caller = currentCaller(services, request, services.now());
  // OpenAI's count takes no output limit nor stream; dropped so a stray one is not refused by the parser.
  const { max_output_tokens: _limit, stream: _stream, ...countable } = body;
  const inbound = buildParsedInbound('openai-responses', countable, undefined);
  authorizeModel(services, caller, { group: caller.group, model: inbound.model, pinnedChannelId: caller.pinnedChannelId });
  requirePrice(services.catalog.snapshot, inbound.model);
  const admission = await admitFreeRequest(services, request);
  const inputTokens = await inbound.countPromptTokens();
  return reply.headers({ 'x-request-id': request.id, ...admission.rateHeaders }).send({ object: 'response.input_tokens', input_tokens: inputTokens });
}
