import type { FastifyReply, FastifyRequest } from 'fastify';
import { openaiEndpoints } from '../openai/openai-endpoints.js';
import { validateChatRequest } from '../openai/validate-chat-request.js';
import type { RelayServices } from '../relay-services.js';
import { requireObjectBody } from '../validate-body.js';
import { buildChatInbound } from './build-text-inbound.js';
import { runTextRelay } from './run-text-relay.js';

/**
 * A Chat Completions request, from whichever route takes one (`/v1/chat/completions`, the console's
 * `/pg/chat/completions`): validated, its inbound built — the passthrough cleaning of thought signatures
 * Google did not issue, the prompt's counts — and relayed to any text channel (run-text-relay.ts). One
 * path, so a route cannot miss what another gets. Throws the 400 of an invalid body before anything runs.
 */
export function runChatRelay(services: RelayServices, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = requireObjectBody(request.body);
  validateChatRequest(body);
  const inbound = buildChatInbound(body, request.rawBody, openaiEndpoints.chat.maxOutputTokens(body));
  return services.inFlight.track(() => runTextRelay(services, inbound, request, reply));
}
