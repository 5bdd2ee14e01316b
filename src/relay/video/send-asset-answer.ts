import type { FastifyReply } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import type { AssetAnswer } from './ask-asset-channels.js';

/**
 * The upstream's answer as it came (status and JSON: Volcengine Ark's shape), with the request's
 * x-ratelimit-* headers; one that is not JSON is a 502.
 */
export async function sendAssetAnswer(reply: FastifyReply, answer: AssetAnswer, rateHeaders: Record<string, string>): Promise<void> {
  try {
    JSON.parse(answer.text);
  } catch {
    throw new GatewayError('upstream_error', `The upstream answered HTTP ${answer.status} without JSON.`);
  }
  await reply.status(answer.status).headers(rateHeaders).header('content-type', 'application/json').send(answer.text);
}
