import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import { isPriced } from '../billing/compute-charge.js';
import type { ReserveOutcome } from '../billing/quota-ledger.js';
import { estimateReservation } from '../billing/estimate-reservation.js';
import type { PriceRecord } from '../catalog/catalog-records.js';
import { minimumMaxOutputTokens } from '../convert/openai-responses/format-openai-responses-request.js';
import { GatewayError } from '../errors/gateway-error.js';
import { buildRateChecks } from '../limits/build-rate-checks.js';
import { consumeRateChecks, unlimited } from './consume-rate-checks.js';
import { correctTokenWindows, type CountedRateCheck } from './correct-token-windows.js';
import { releaseUnknownReserve } from './release-unknown-reserve.js';
import { requirePrice } from './require-price.js';
import type { PromptTokens } from './estimate-prompt-tokens.js';
import type { RelayServices } from './relay-services.js';

export interface AdmissionInput extends PromptTokens {
  requestId: string;
  caller: AuthenticatedCaller;
  model: string;
  /** undefined = the client named no output budget; 0 = the endpoint produces no output tokens. */
  maxOutputTokens: number | undefined;
  /** Per-call models: how many calls (images) the request is. */
  calls?: number;
  /** Web searches the request lets its upstream run, reserved at the `web_search` price. */
  webSearches?: number | undefined;
  /** The price to bill at when the route prices the request itself (a video task's size and length); else the model's. */
  price?: PriceRecord | undefined;
  /** The request asked for OpenAI's Priority tier, and is sent with it (its price names a `priority` multiplier). */
  priorityTier?: boolean | undefined;
  ip: string;
}

/**
 * A request let through: its price, its reservation (sized from the estimated prompt) and the rate-limit
 * units it took; `countPromptTokens` gives settlement the exact prompt count when no upstream reports one.
 */
export interface Admission extends PromptTokens {
  price: PriceRecord;
  groupRatio: number;
  quotaPerUnit: number;
  reservedAmount: number;
  /** The rate-limit units taken, with the windows they were counted in (settlement corrects the tokens ones). */
  rateChecks: CountedRateCheck[];
  calls: number;
  /** x-ratelimit-* headers for the client's response. */
  rateHeaders: Record<string, string>;
  /** Things the log should know (a rate limiter that could not be reached). */
  warnings: string[];
}

/**
 * The fewest prompt tokens a request is reserved for: with a token price that is at least 1 quota unit
 * (a non-zero cost rounds up to 1), so an exhausted wallet is refused; a free model (prices of 0, a group
 * ratio of 0) still reserves nothing.
 */
const minimumPromptTokens = 1;

/**
 * The reservation, or the 402 of a request whose limits multiply past any amount the books can hold (a
 * candidate count of 1e15, a search cap of 2^53): no balance could cover it, and the arithmetic would
 * otherwise fail as a 500.
 */
function reservationOrRefusal(estimate: Parameters<typeof estimateReservation>[0]): number {
  try {
    return estimateReservation(estimate);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new GatewayError('insufficient_quota', 'Insufficient quota: no balance can cover this request (its limits allow more than 2^53 quota units).');
  }
}

/**
 * The price a request is billed at: its `priority` multiplier kept only for a request sent with OpenAI's
 * Priority tier (reserved at it, and billed at it if the answer says it was served at it); any other
 * request is standard, whatever tier an answer names.
 */
function priceAtTier(price: PriceRecord, priorityTier: boolean): PriceRecord {
  if (priorityTier || price.priority === undefined) return price;
  const { priority: _standard, ...standard } = price;
  return standard;
}

/**
 * Price → rate limit → reserve (issue #4). Throws the GatewayError the client gets: 400 for an unpriced
 * model, 429 with Retry-After and x-ratelimit-* headers, 402 when the token or the wallet is short.
 * Once this returns, the caller must settle the reservation whatever happens (settle-request.ts).
 */
export async function admitRequest(services: RelayServices, input: AdmissionInput): Promise<Admission> {
  const snapshot = services.catalog.snapshot;
  const settings = snapshot.settings;
  const price = priceAtTier(input.price ?? requirePrice(snapshot, input.model), input.priorityTier === true);
  // A request that names no output limit may be sent any channel's own default (an Anthropic channel's
  // settings.max_tokens); one that names a tiny limit may be sent Responses' minimum instead.
  const outputBudget = snapshot.outputBudgetFor(input.model);
  const maxOutputTokens = input.maxOutputTokens !== undefined && input.maxOutputTokens > 0 ? Math.max(input.maxOutputTokens, minimumMaxOutputTokens) : input.maxOutputTokens;
  const groupRatio = snapshot.groupRatios.get(input.caller.group) ?? 1;
  const calls = input.calls ?? 1;
  const reservedAmount = isPriced(price)
    ? reservationOrRefusal({
        // Whatever it sends, a request the upstream serves reads something: an estimate of nothing (input
        // the estimate cannot see) would reserve 0, which the ledger admits on any balance, an empty one too.
        promptTokens: Math.max(input.estimatedPromptTokens, minimumPromptTokens),
        maxOutputTokens,
        defaultMaxOutputTokens: outputBudget,
        price,
        groupRatio,
        quotaPerUnit: settings.quotaPerUnit,
        calls,
        webSearches: input.webSearches ?? 0,
      })
    : 0;

  const estimatedTokens = input.estimatedPromptTokens + (maxOutputTokens ?? outputBudget);
  const checks = buildRateChecks(input.caller, input.ip, estimatedTokens, settings);
  // Without limits there is nothing to wait for (most keys): no promise on the hot path.
  const { rateChecks, rateHeaders, warnings } = checks.length === 0 ? unlimited() : await consumeRateChecks(services, checks);

  let reserved: ReserveOutcome;
  try {
    reserved = await services.ledger.reserve({ id: input.requestId, tokenId: input.caller.token.id, userId: input.caller.user.id, amount: reservedAmount, model: input.model }, services.now());
  } catch (error) {
    releaseUnknownReserve(services, input.requestId, rateChecks, error);
    throw error;
  }
  if (!reserved.ok) {
    // Refused before any upstream call: the request used no tokens (its request still counts).
    correctTokenWindows(services.rateLimiter, rateChecks, 0, services.now());
    const whose = reserved.short === 'token' ? 'this API key' : 'your account';
    throw new GatewayError('insufficient_quota', `Insufficient quota: ${whose} cannot cover this request (needs up to ${reservedAmount} quota units).`);
  }
  const { estimatedPromptTokens, countPromptTokens, promptImageTokens } = input;
  return { price, groupRatio, quotaPerUnit: settings.quotaPerUnit, reservedAmount, estimatedPromptTokens, countPromptTokens, promptImageTokens, rateChecks, calls, rateHeaders, warnings };
}
