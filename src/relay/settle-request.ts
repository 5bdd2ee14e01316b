import { computeCharge, isPriced } from '../billing/compute-charge.js';
import { addAudio, addImages, withServiceTier, type NormalizedUsage, type UsageSource } from '../billing/normalized-usage.js';
import type { SettleOutcome } from '../billing/quota-ledger.js';
import type { Admission } from './admit-request.js';
import { correctTokenWindows } from './correct-token-windows.js';
import { countTextsTokens } from './count-tokens.js';
import type { RelayServices } from './relay-services.js';
import type { UsageMeter } from './usage-meter.js';

export interface SettlementInput {
  requestId: string;
  admission: Admission;
  meter: UsageMeter;
  /** Whether an upstream accepted the request (2xx): only then can anything have been produced. */
  upstreamAnswered: boolean;
  channelId: number | undefined;
}

export interface Settlement {
  usage: NormalizedUsage;
  usageSource: UsageSource;
  charged: number;
}

/**
 * The billing rule for every ending — success, client abort, upstream cut, failure: bill what the
 * upstream reported; else, when it answered, the prompt and the text it produced, counted locally; else
 * nothing. The source is recorded in the log (new-api §10.1 shows what happens without such a rule).
 */
export async function resolveUsage(input: Pick<SettlementInput, 'admission' | 'meter' | 'upstreamAnswered'>): Promise<{ usage: NormalizedUsage; source: UsageSource }> {
  const { meter, admission } = input;
  // The tier a Chat answer named outside its usage goes with it (a Priority answer is billed at that tier).
  if (meter.upstreamUsage !== undefined) return { usage: withServiceTier(meter.upstreamUsage, meter.servedTier), source: 'upstream' };
  if (!input.upstreamAnswered) return { usage: { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } }, source: 'none' };
  return { usage: await countUsageLocally(admission, meter), source: 'local' };
}

/**
 * The usage of an answer whose upstream reported none: the prompt (less the opaque reasoning and the
 * thinking text the attempt did not send, `unsentPromptTokens` and `unsentPromptTexts`; or the input the upstream reported before its answer, Anthropic's
 * message_start) and the text produced (less its reasoning when the
 * upstream counted that, `reportedReasoning`), counted exactly
 * (o200k, not the admission estimate; only this path loads the tokenizer, count-tokens.ts), and any output
 * that is not text at what its endpoint says it costs (images without usage, run-image-relay.ts). Settlement
 * bills it, and a converted answer shows it to the client, so the two agree.
 */
export async function countUsageLocally(admission: Pick<Admission, 'countPromptTokens' | 'promptImageTokens'>, meter: UsageMeter): Promise<NormalizedUsage> {
  const reported = meter.reportedInput;
  const reasoning = meter.reportedReasoning;
  const [promptTokens, outputTokens, reasoningTextTokens, audioOutputTokens] = await Promise.all([
    reported === undefined ? countSentPromptTokens(admission, meter) : 0,
    meter.outputTally.total(),
    reasoning === undefined ? 0 : meter.reasoningTally.total(),
    meter.audioTranscriptTally.total(),
  ]);
  // The input the upstream reported before its answer (its cache reads and writes with it) is what it bills.
  const input = reported === undefined ? { total: promptTokens, cacheRead: 0, cacheWrite: 0 } : { ...reported };
  // Reasoning the upstream counted (its report left out only the visible output) replaces the count of its text.
  const output = reasoning === undefined ? { total: outputTokens, reasoning: 0 } : { total: Math.max(0, outputTokens - reasoningTextTokens) + reasoning, reasoning };
  const usage: NormalizedUsage = { input, output: { total: output.total + audioOutputTokens + meter.unreportedOutputTokens, reasoning: output.reasoning } };
  // Spoken output is counted by its transcript, each of its tokens one of audio output (at `audio_output`
  // where the price sets it): a lower bound, OpenAI's audio tokens for the same speech being several
  // times as many, so an answer without usage is never billed above what its upstream charged.
  addAudio(usage, 0, audioOutputTokens);
  // Searches the upstream reported running before it broke off (Gemini grounding, Responses' finished
  // `web_search_call` items) are billed as it bills them.
  if (meter.reportedWebSearches !== undefined && meter.reportedWebSearches > 0) usage.webSearches = meter.reportedWebSearches;
  // The tier the answer's earliest event named (a Chat chunk, a Responses stream's response.created);
  // else, for an answer cut before any named one, the tier the request went upstream with: OpenAI serves
  // a Priority request at that tier (bar the downgrades its final answer would have named) and bills it so.
  const tier = meter.servedTier ?? meter.askedTier;
  if (tier !== undefined) usage.serviceTier = tier;
  // The prompt's images (their flat estimates) at the image input price, and unreported output, which is
  // images (their budget), at the image output price.
  return addImages(usage, reported === undefined ? admission.promptImageTokens : 0, meter.unreportedOutputTokens);
}

/** The local count of the prompt less what the attempt left out of the body it sent (usage-meter.ts). */
async function countSentPromptTokens(admission: Pick<Admission, 'countPromptTokens'>, meter: UsageMeter): Promise<number> {
  const [prompt, unsentTexts] = await Promise.all([admission.countPromptTokens(), countTextsTokens(meter.unsentPromptTexts)]);
  return Math.max(0, prompt - meter.unsentPromptTokens - unsentTexts);
}

/** The calls asked for, or fewer when the answer delivered fewer (never more: the reservation covers those asked for). */
function chargedCalls(asked: number, delivered: number | undefined): number {
  return delivered === undefined ? asked : Math.min(asked, delivered);
}

/**
 * Settles the reservation at the actual charge and corrects the rate-limit units (tokens) it over-took.
 * When the ledger cannot be reached (the database down, or its answer lost), the settle goes to the retry
 * queue and this resolves undefined; `settledLate` hears the settlement once it went through, with the
 * time the request's own settle failed (its log row is written then).
 */
export async function settleRequest(
  services: RelayServices,
  input: SettlementInput,
  settledLate: (settlement: Settlement, failedAt: number, loggedByRecovery: boolean) => void,
): Promise<Settlement | undefined> {
  const { usage, source } = await resolveUsage(input);
  const { admission } = input;
  // A request that no upstream accepted produced nothing and costs nothing, per-call price or not.
  let actual = 0;
  if (isPriced(admission.price) && input.upstreamAnswered) {
    try {
      actual = computeCharge(usage, admission.price, admission.groupRatio, admission.quotaPerUnit, chargedCalls(admission.calls, input.meter.deliveredCalls));
    } catch {
      // Usage the upstream reported that cannot be priced (negative or absurd counts): charge what was
      // reserved rather than leave the reservation open or give the request away.
      actual = admission.reservedAmount;
    }
  }
  const settleInput = { actualAmount: actual, channelId: input.channelId };
  let settled: SettleOutcome;
  try {
    settled = await services.ledger.settle(input.requestId, settleInput, services.now());
  } catch (error) {
    correctTokenWindows(services.rateLimiter, admission.rateChecks, usage.input.total + usage.output.total, services.now());
    const failedAt = services.now();
    services.settleRetries.add(
      { reservationId: input.requestId, input: settleInput, onSettled: (charged, loggedByRecovery) => settledLate({ usage, usageSource: source, charged }, failedAt, loggedByRecovery) },
      error,
    );
    return undefined;
  }
  correctTokenWindows(services.rateLimiter, admission.rateChecks, usage.input.total + usage.output.total, services.now());
  return { usage, usageSource: source, charged: settled.charged };
}

