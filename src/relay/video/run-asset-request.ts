import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedCaller } from '../../auth/authenticate-token.js';
import { formatErrorLogText } from '../../errors/format-error-log-text.js';
import type { GatewayError } from '../../errors/gateway-error.js';
import { toGatewayError } from '../../http/middleware/handle-errors.js';
import { admitFreeRequest } from '../admit-free-request.js';
import { readUpstreamErrorBody } from '../read-upstream-error.js';
import type { RelayServices } from '../relay-services.js';
import type { AssetAnswer } from './ask-asset-channels.js';
import { buildAssetLogRow } from './build-asset-log-row.js';
import { sendAssetAnswer } from './send-asset-answer.js';

/**
 * The envelope of an asset request whose input is checked: its caller read again (current-caller.ts: a key
 * switched off meanwhile is refused), the request rate limits (admit-free-request.ts: a full window is a 429
 * before any lookup or upstream call, and no row, as on the relay routes), then `call` with that caller, whose answer is relayed with the x-ratelimit-* headers, then one log row whatever the ending —
 * quota 0, the route, the status the client got (written in the background: no database wait).
 */
export function runAssetRequest(services: RelayServices, request: FastifyRequest, reply: FastifyReply, call: (caller: AuthenticatedCaller) => Promise<AssetAnswer>, style?: string): Promise<void> {
  return services.inFlight.track(() => relayAsset(services, request, reply, call, style));
}

async function relayAsset(services: RelayServices, request: FastifyRequest, reply: FastifyReply, call: (caller: AuthenticatedCaller) => Promise<AssetAnswer>, style: string | undefined): Promise<void> {
  const startedAt = services.now();
  const admission = await admitFreeRequest(services, request);
  const caller = admission.caller;
  let answer: AssetAnswer | undefined;
  let failure: GatewayError | undefined;
  try {
    answer = await call(caller);
    await sendAssetAnswer(reply, answer, admission.rateHeaders);
  } catch (error) {
    failure = toGatewayError(error);
    throw error;
  } finally {
    const status = failure?.status ?? answer?.status ?? 500;
    const upstreamError = failure === undefined && answer !== undefined && answer.status >= 400 ? readUpstreamErrorBody(answer.text, answer.status).message : undefined;
    services.logWriter.write(
      buildAssetLogRow({
        requestId: request.id,
        startedAt,
        finishedAt: services.now(),
        caller,
        channelId: answer?.channel.id,
        path: request.url.split('?', 1)[0] ?? request.url,
        status,
        warnings: admission.warnings,
        ip: request.ip,
        error: failure === undefined ? upstreamError : formatErrorLogText(failure),
        ...(style === undefined ? {} : { style }),
      }),
    );
  }
}
