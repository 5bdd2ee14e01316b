import type { RecoveredReservation } from '../billing/quota-ledger.js';
import type { LogRow } from '../storage/logs-repository.js';

/** The token columns of a log row that records money without a request behind it (a recovery, a refund). */
export const noTokens = { input_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, audio_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, audio_output_tokens: 0, image_input_tokens: 0, image_output_tokens: 0, web_search_calls: 0 } as const;

/**
 * Pure: the log row of a request whose instance stopped before settling it, written when start-up
 * recovery charges its reservation (issue #4: "settled at their reserved amount and logged as such").
 * Without it the token is charged with no row to explain the charge. What the request was for died with
 * the process but for its model (and a task's channel), which the reservation keeps: the row keeps its id,
 * its owner, the model, the charge, `usage_source: 'reserved'`, status 0.
 */
export function buildRecoveryLogRow(reservation: RecoveredReservation, tokenName: string | undefined): LogRow {
  return {
    request_id: reservation.id,
    created_at: reservation.createdAt,
    user_id: reservation.userId,
    token_id: reservation.tokenId,
    token_name: tokenName ?? null,
    channel_id: reservation.channelId,
    model: reservation.model,
    upstream_model: null,
    style: 'recovery',
    path: '',
    is_stream: 0,
    status: 0,
    ...noTokens,
    quota: reservation.charged,
    latency_ms: 0,
    first_token_ms: null,
    attempts: '[]',
    warnings: '[]',
    usage_source: 'reserved',
    ip: null,
    error: `Settled at its reserved amount on start-up: instance ${reservation.owner} stopped before settling it.`.slice(0, 1000),
  };
}

/**
 * Pure: the log row of a request whose charge was settled but whose own row was lost — it was waiting in
 * the log writer when its instance died (rows are written in batches, up to 500 ms later) — written by
 * that instance's next start (or, if it never starts again, another node) from the settlement, which keeps
 * the model and the channel charged: the row keeps its id, its owner, those and the charge it was settled
 * at, `usage_source: 'settled'`, status 0. Its tokens died with the process.
 */
export function buildLostLogRow(reservation: RecoveredReservation, tokenName: string | undefined): LogRow {
  return {
    ...buildRecoveryLogRow(reservation, tokenName),
    usage_source: 'settled',
    error: `Settled, but its log row was lost: instance ${reservation.owner} stopped before writing it; recorded from the settlement.`.slice(0, 1000),
  };
}
