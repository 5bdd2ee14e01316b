import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { candidateChannels } from '../../routing/select-channel.js';
import { admitFreeRequest } from '../admit-free-request.js';
import { currentCaller } from '../current-caller.js';
import { authorizeModel } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import { requirePrice } from '../require-price.js';
import { askAnthropicCountTokens } from './ask-anthropic-count-tokens.js';
import { buildParsedInbound } from './build-text-inbound.js';

const anthropicChannelTypes: ReadonlySet<string> = new Set(['anthropic']);

/**
 * `POST /v1/messages/count_tokens` (Anthropic's token count): the body a Messages request would send, less
 * its output limit. Refused as /v1/messages refuses (a malformed body 400, then the model: 403 outside the
 * key's model_limits, 400 unknown or unpriced, 503 elsewhere only). Never charged, but either way one
 * request against the rpm windows, as the free asset requests (a 429 when one is full, before any count):
 * - An Anthropic channel of the caller's group serves the model: the count is that channel's
 *   (`/v1/messages/count_tokens`, model mapped, the channel's key), relayed as it answers; it uses the
 *   operator's upstream account.
 * - Otherwise it is counted here (the exact o200k count a request's settlement uses, as Gemini's
 *   `:countTokens`): no upstream call and no log row, but the exact count of a large body is CPU time on
 *   the event loop, which a key must not be able to ask for without end.
 */
export async function runAnthropicCountTokens(services: RelayServices, body: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  // Read again now that the body has arrived: a key switched off while it uploaded is refused here.
  const caller = currentCaller(services, request, services.now());
  // Validated as a Messages body: Anthropic's count takes no max_tokens (nor stream), which the parser wants.
  const { max_tokens: _limit, stream: _stream, ...countable } = body;
  const inbound = buildParsedInbound('anthropic-messages', { ...countable, max_tokens: 1 }, undefined);
  const query = { group: caller.group, model: inbound.model, pinnedChannelId: caller.pinnedChannelId };
  authorizeModel(services, caller, query);
  requirePrice(services.catalog.snapshot, inbound.model);
  const requestIds = { 'x-request-id': request.id, 'request-id': request.id };

  const admission = await admitFreeRequest(services, request);
  const anthropicQuery = { ...query, channelTypes: anthropicChannelTypes };
  if (candidateChannels(services.catalog.snapshot.channels, anthropicQuery).length === 0) {
    const inputTokens = await inbound.countPromptTokens();
    return reply.headers({ ...requestIds, ...admission.rateHeaders }).send({ input_tokens: inputTokens });
  }

  const answer = await askAnthropicCountTokens(services, { query: anthropicQuery, body, rawBody: request.rawBody, clientHeaders: request.headers });
  try {
    JSON.parse(answer.text);
  } catch {
    throw new GatewayError('upstream_error', `The Anthropic channel answered HTTP ${answer.status} without JSON.`);
  }
  const retryAfter = answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter };
  return reply
    .code(answer.status)
    .headers({ ...requestIds, ...admission.rateHeaders, ...retryAfter, 'x-relay-channel-id': `${answer.channel.id}` })
    .header('content-type', 'application/json')
    .send(answer.text);
}
