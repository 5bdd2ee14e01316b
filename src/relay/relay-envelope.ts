import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import { tokenAllowsModel } from '../auth/authorize-model.js';
import { corsResponseHeaders } from '../http/cors.js';
import { toGatewayError } from '../http/middleware/handle-errors.js';
import { billsPriorityTier } from '../billing/bills-priority-tier.js';
import type { NormalizedUsage } from '../billing/normalized-usage.js';
import type { ChannelRecord, PriceRecord } from '../catalog/catalog-records.js';
import { GatewayError } from '../errors/gateway-error.js';
import { quoteClientText } from '../errors/quote-client-text.js';
import { ClientAbortSignal } from '../providers/client-abort-signal.js';
import type { UpstreamSignal } from '../providers/upstream-client.js';
import { refusesChannelCredentials } from '../routing/refuses-channel-credentials.js';
import { channelCredentialsRefused } from './channel-credentials-refused.js';
import { reportsChannelOutOfCredit } from '../routing/reports-channel-out-of-credit.js';
import { candidateChannels, type ChannelQuery } from '../routing/select-channel.js';
import { admitRequest, type Admission } from './admit-request.js';
import { buildLogRow } from './build-log-row.js';
import type { PromptTokens } from './estimate-prompt-tokens.js';
import type { RelayServices } from './relay-services.js';
import { runFailover, type AttemptOutcome, type FailoverResult } from './run-failover.js';
import { settleRequest, type Settlement } from './settle-request.js';
import type { TextStyleName } from './text-style.js';
import { ClientStreamSlot } from './client-stream-slot.js';
import { currentCaller } from './current-caller.js';
import { UsageMeter, type ProducedOutput } from './usage-meter.js';

/** The log style of `/v1/messages`, the one route whose clients read `request-id`. */
const anthropicLogStyle: TextStyleName = 'anthropic-messages';

/** What a style's route knows about a request once its body is parsed. */
export interface RelayPlan extends PromptTokens {
  model: string;
  stream: boolean;
  maxOutputTokens: number | undefined;
  /** Per-call models: how many calls (images) the request is; 1 unless set. */
  calls?: number;
  /** Web searches the request lets its upstream run (a declared search tool): reserved at the model's `web_search` price. */
  webSearches?: number;
  /** The price when the route chose it (video tasks: by size and length); else the model's own. */
  price?: PriceRecord;
  /**
   * The request goes upstream with OpenAI's `service_tier: "priority"` (its price names a multiplier):
   * reserved at the tier, and billed at it when the answer says it was served at it.
   */
  priorityTier?: boolean;
  /** Channel types able to serve it; undefined = any. */
  channelTypes?: ReadonlySet<string>;
  /** A narrower test a channel must pass (`ChannelQuery.channelFilter`); undefined = none. */
  channelFilter?: ((channel: ChannelRecord) => boolean) | undefined;
  /** The one channel that may serve it (a remix goes where its video is), else the caller's pin, if any. */
  pinnedChannelId?: number;
  /** The channel tried first while it can serve (it holds the stored response the request continues). */
  preferredChannelId?: number | undefined;
  /** The key (fingerprint) that channel is called with while it is usable (its account holds that response). */
  preferredKeyFingerprint?: string | undefined;
  /**
   * Told when an attempt's answer has an id (its opening event) and again when it is complete — its final
   * usage read, before its last bytes reach the client (a client may send its next request the moment they
   * do) — with the channel and key that made it.
   */
  onAnswered?: ((channel: ChannelRecord, key: string, meter: UsageMeter) => void) | undefined;
  /** The log's `style` column. */
  logStyle: string;
  /** Conversion warnings gathered before and during the attempts (the log keeps them). */
  warnings: string[];
  /**
   * Told what the request was charged when its settle could not be made at once (the database was
   * unreachable) and went through later, from the retry queue; the envelope then resolved undefined.
   */
  onSettledLate?: ((charged: number) => void) | undefined;
}

export interface AttemptTools {
  meter: UsageMeter;
  /** Aborted when the client goes away: pass it to the upstream call. */
  signal: UpstreamSignal;
  admission: Admission;
  /** Headers every successful answer carries. */
  clientHeaders(channel: ChannelRecord): Record<string, string>;
  setUpstreamModel(model: string): void;
}

export type StyleAttempt = (channel: ChannelRecord, key: string, tools: AttemptTools) => Promise<AttemptOutcome<{ status: number }>>;

/** How a failed request is answered when the upstream's own error body can go back as sent. */
export type ErrorPassthrough = (channel: ChannelRecord, json: unknown) => boolean;

/**
 * The pipeline around every relay style (issue #3/#4): authorize model → admit (price, rate limit,
 * reserve) → failover over channels with the style's attempt → answer failures → settle → log.
 * Settlement and the log row happen in `finally`, so no ending can lose a charge. Resolves with what the
 * request was charged (a video task keeps it, to refund it if the task fails), or undefined when the
 * database could not take the settle, which is then retried (`plan.onSettledLate` hears of it).
 */
export async function runRelayEnvelope(
  services: RelayServices,
  request: FastifyRequest,
  reply: FastifyReply,
  plan: RelayPlan,
  attempt: StyleAttempt,
  errorPassthrough: ErrorPassthrough,
): Promise<number | undefined> {
  const startedAt = services.now();
  // Read again once the body arrived (the route handler's first statement, http/refresh-caller.ts); this
  // read sees a change made during the route's own steps since, and is two comparisons otherwise.
  const caller = currentCaller(services, request, startedAt);
  const { model } = plan;
  // A route's pin (a remix, a task continued where its origin was made) keeps the caller's group, unless
  // the caller's own admin pin names the same channel.
  const pinKeepsGroup = plan.pinnedChannelId !== undefined && plan.pinnedChannelId !== caller.pinnedChannelId;
  const query: Omit<ChannelQuery, 'excluded' | 'coolingDown'> =
    plan.channelTypes === undefined
      ? { group: caller.group, model, pinnedChannelId: plan.pinnedChannelId ?? caller.pinnedChannelId, pinKeepsGroup }
      : { group: caller.group, model, pinnedChannelId: plan.pinnedChannelId ?? caller.pinnedChannelId, pinKeepsGroup, channelTypes: plan.channelTypes };
  if (plan.preferredChannelId !== undefined) query.preferredChannelId = plan.preferredChannelId;
  if (plan.channelFilter !== undefined) query.channelFilter = plan.channelFilter;
  authorizeModel(services, caller, query);

  const admission = await admitRequest(services, { requestId: request.id, caller, model, estimatedPromptTokens: plan.estimatedPromptTokens, countPromptTokens: plan.countPromptTokens, promptImageTokens: plan.promptImageTokens, maxOutputTokens: plan.maxOutputTokens, calls: plan.calls, webSearches: plan.webSearches, price: plan.price, priorityTier: plan.priorityTier, ip: request.ip });
  const meter = new UsageMeter();
  const abort = new ClientAbortSignal();
  let usageWait: NodeJS.Timeout | undefined;
  const onClientClose = () => {
    if (reply.raw.writableFinished) return;
    meter.clientAborted = true;
    // An answer produced whole but for its usage report is read on for it, within a bound; else the
    // upstream call ends now, so an abandoned answer stops costing.
    const waitMs = services.settings.usageWaitMs;
    if (waitMs > 0 && meter.upstreamUsage === undefined && meter.answerProduced()) {
      meter.waitingForUsage = true;
      usageWait = setTimeout(() => abort.abort(), waitMs);
      return;
    }
    abort.abort();
  };
  reply.raw.on('close', onClientClose);
  // A stream silent for a keep-alive period gets a ping: the attempt under way puts its writer in the slot.
  const slot = plan.stream && services.keepAlive.enabled ? new ClientStreamSlot(meter) : undefined;
  if (slot !== undefined) {
    meter.stream = slot;
    services.keepAlive.watch(slot);
  }
  let upstreamModel: string | undefined;
  let upstreamAnswered = false;
  let answeredFailure: ProducedOutput | undefined;
  let lastAttemptAnswered = false;
  // The channel whose answer the request is billed for, which its used quota counts: the last attempt
  // that answered (as `upstreamAnswered` and `answeredFailure` follow it), or the one that wrote to the client.
  let answeredChannelId: number | undefined;
  let attemptChannelId: number | undefined;
  let attemptNumber = 0;
  let result: FailoverResult<{ status: number }> | undefined;
  let failure: GatewayError | undefined;
  let charged: number | undefined;
  // Anthropic's SDK reads the id from `request-id` (protocols.md §6), the others from `x-request-id`.
  // (Known from the plan: Fastify's `request.routeOptions` builds an object on every read.)
  const anthropicClient = plan.logStyle === anthropicLogStyle;
  // One tools object for every attempt; attempts run one after another, so the headers read the current one.
  const tools: AttemptTools = {
    meter,
    signal: abort,
    admission,
    setUpstreamModel: (name) => (upstreamModel = name),
    // Literal first, spread last: V8 (Node 20) makes adding keys to a `{ ...spread }` clone cost µs.
    clientHeaders: (channel) =>
      anthropicClient
        ? { 'x-request-id': request.id, 'request-id': request.id, 'x-relay-channel-id': `${channel.id}`, 'x-relay-attempts': `${attemptNumber}`, ...corsResponseHeaders, ...admission.rateHeaders }
        : { 'x-request-id': request.id, 'x-relay-channel-id': `${channel.id}`, 'x-relay-attempts': `${attemptNumber}`, ...corsResponseHeaders, ...admission.rateHeaders },
  };

  try {
    result = await runFailover(services, {
      query,
      preferredKeyFingerprint: plan.preferredKeyFingerprint,
      retryTimes: services.catalog.snapshot.settings.retryTimes,
      shouldStop: () => meter.clientAborted,
      attempt: async (channel, key) => {
        attemptNumber += 1;
        attemptChannelId = channel.id;
        // Until it returns: an attempt that throws (a conversion refusing the request) produced nothing.
        lastAttemptAnswered = false;
        slot?.close();
        // A failed attempt never reached the client; the next one's answer is the one billed.
        if (attemptNumber > 1) meter.startNextAttempt();
        if (plan.onAnswered !== undefined) {
          const onAnswered = plan.onAnswered;
          meter.onAnswerNoted = () => onAnswered(channel, key, meter);
        }
        const outcome = await attempt(channel, key, tools);
        // A failed attempt's writer sent nothing and is done with; the next attempt opens its own.
        if (outcome.kind === 'failed') slot?.close();
        if (outcome.kind === 'served' || outcome.upstreamAnswered === true) {
          upstreamAnswered = true;
          answeredChannelId = channel.id;
        }
        // Kept in case no later attempt produces anything: then this one's output is what the request cost.
        answeredFailure = outcome.kind === 'failed' && outcome.upstreamAnswered === true ? meter.setAsideAttempt() : answeredFailure;
        lastAttemptAnswered = outcome.kind === 'served' || outcome.upstreamAnswered === true;
        return outcome;
      },
    });
    if (result.kind !== 'served' && !meter.clientAborted) failure = answerFailure(result, reply, request.id, anthropicClient, errorPassthrough);
  } catch (error) {
    // One error model: a thrown fault becomes what handle-errors.ts would answer (a stack overflow on the
    // client's nested JSON is its 400, anything unknown a 500).
    failure = toGatewayError(error);
    if (!meter.committed && !meter.clientAborted) throw failure;
  } finally {
    if (slot !== undefined) services.keepAlive.unwatch(slot);
    reply.raw.off('close', onClientClose);
    clearTimeout(usageWait);
    // An earlier attempt's output, when no later one produced anything (even one that threw), is what the
    // request cost; an attempt that threw after writing to the client is billed for what it sent.
    if (answeredFailure !== undefined && !lastAttemptAnswered && !meter.committed) meter.restoreAttempt(answeredFailure);
    // Served: the channel that served. Else an attempt that threw after writing to the client is billed
    // for what it sent, and a failure after its upstream answered for what that answer produced: its
    // channel counts the charge as it would have had it served (nothing answered: no channel, no charge).
    const billedChannelId = result?.kind === 'served' ? result.channel.id : meter.committed ? attemptChannelId : answeredChannelId;
    // The row names the channel billed, so a channel's rows add up to its used quota; a request billed on
    // none names the last channel tried (its failure is the one answered).
    const channelId = billedChannelId ?? (result !== undefined && result.kind !== 'no_channel' ? result.channel.id : undefined);
    const logRow = (settlement: Settlement, finishedAt: number) =>
      buildLogRow({
        requestId: request.id,
        startedAt,
        finishedAt,
        firstTokenAt: meter.firstTokenAt,
        caller,
        channelId,
        model,
        upstreamModel,
        style: plan.logStyle,
        path: pathOf(request.url),
        stream: plan.stream,
        status: meter.clientAborted ? 499 : result?.kind === 'served' ? result.value.status : (failure?.status ?? 500),
        usage: settlement.usage,
        usageSource: settlement.usageSource,
        charged: settlement.charged,
        attempts: result !== undefined && result.kind !== 'no_channel' ? result.attempts : [],
        warnings: withTierNote(admission.warnings.length === 0 ? plan.warnings : [...admission.warnings, ...plan.warnings], settlement.usage, admission.price, settlement.usageSource === 'local' && meter.servedTier === undefined),
        ip: request.ip,
        error: meter.interruption ?? (meter.clientAborted ? 'client disconnected' : failure?.message),
      });
    // A settle the database could not take is retried in the background: the request's log row (and a
    // task's charge) follow it once it went through, with the usage it was settled at.
    const settlement = await settleRequest(services, { requestId: request.id, admission, meter, upstreamAnswered, channelId: billedChannelId }, (late, failedAt, loggedByRecovery) => {
      // Crash recovery settled it first and logged that charge: one charge, one row.
      if (!loggedByRecovery) services.logWriter.write(logRow(late, failedAt));
      plan.onSettledLate?.(late.charged);
    });
    if (settlement !== undefined) {
      charged = settlement.charged;
      services.logWriter.write(logRow(settlement, services.now()));
    }
  }
  return charged;
}

/** Failed requests answer with the upstream's own error body when the style allows it, else our envelope. */
function answerFailure(
  result: Exclude<FailoverResult<{ status: number }>, { kind: 'served' }>,
  reply: FastifyReply,
  requestId: string,
  anthropicClient: boolean,
  errorPassthrough: ErrorPassthrough,
): GatewayError {
  if (result.kind === 'no_channel') throw new GatewayError('no_available_channel', 'No channel is available for this model right now.');
  const { failure, errorBody } = result;
  const headers: Record<string, string> = { 'x-relay-attempts': String(result.attempts.length) };
  // The last upstream's own backoff (429, 503), which the SDKs schedule their retries on.
  if (errorBody?.retryAfter !== undefined) headers['retry-after'] = errorBody.retryAfter;
  // The channel's key refused (every channel tried, or the retry budget spent): the client's own key was
  // accepted, so it is told the gateway failed (502), never its style's words for a bad key — not even as
  // the upstream's own body of its style, which its SDK would raise as an authentication error. The
  // upstream's message (it may name the channel's account) stays in the log's attempts.
  if (failure.kind === 'status' && refusesChannelCredentials(failure)) {
    throw channelCredentialsRefused('upstream', failure.status, { headers });
  }
  // The channel's account out of credit: the client's own balance was admitted, so it is told the gateway
  // failed (502), never its style's quota words (OpenAI `insufficient_quota`, Anthropic `billing_error`), which
  // read as its own balance run out — not even as the upstream's body of its style. The upstream's message
  // (it may name the channel's organisation) stays in the log's attempts.
  if (failure.kind === 'status' && reportsChannelOutOfCredit(failure)) {
    throw new GatewayError('upstream_out_of_credit', `The upstream says the account of the gateway's channel is out of credit or disabled (HTTP ${failure.status}). Your API key and balance are not at fault; the gateway's operator must fund or fix the channel.`, { headers });
  }
  if (failure.kind === 'status') {
    if (errorBody?.json !== undefined && errorPassthrough(result.channel, errorBody.json)) {
      void reply.code(failure.status).headers(anthropicClient ? { ...headers, 'x-request-id': requestId, 'request-id': requestId } : { ...headers, 'x-request-id': requestId }).send(errorBody.json);
      return new GatewayError('upstream_error', failure.message, { status: failure.status });
    }
    // Rendered in the client's words for the upstream's error (render-error.ts), not in the vendor's.
    throw new GatewayError('upstream_error', failure.message, { status: failure.status, headers, upstream: { code: errorBody?.code } });
  }
  if (failure.kind === 'timeout') throw new GatewayError('upstream_timeout', failure.message, { headers });
  throw new GatewayError('upstream_error', failure.message, { headers });
}

/**
 * Whether the caller may use the model here: its key's model limits (403), then some channel of its group
 * that serves it (503 when the model exists elsewhere, 400 when no channel has it). Every route that
 * answers for a model asks this, the ones that call no upstream (Gemini's countTokens) too.
 */
export function authorizeModel(services: RelayServices, caller: AuthenticatedCaller, query: Omit<ChannelQuery, 'excluded' | 'coolingDown'>): void {
  const { model } = query;
  if (!tokenAllowsModel(caller, model)) throw new GatewayError('model_not_allowed', `This API key may not use model ${quoteClientText(model)}.`, { param: 'model' });
  const channels = services.catalog.snapshot.channels;
  if (candidateChannels(channels, query).length > 0) return;
  if (channels.some((channel) => channel.models.includes(query.model))) {
    throw new GatewayError('no_available_channel', `No available channel for model ${query.model} under group ${caller.group}.`);
  }
  throw new GatewayError('model_not_found', `The model \`${quoteClientText(query.model)}\` does not exist or you do not have access to it.`, { param: 'model' });
}

/**
 * The log's warnings, with a note when the charge took the price's Priority multiplier (the row has no
 * column for it): served at the tier, or (`asked`) cut before any event named a tier, so billed at the one
 * the request asked for.
 */
function withTierNote(warnings: string[], usage: NormalizedUsage, price: PriceRecord, asked: boolean): string[] {
  if (!billsPriorityTier(usage, price)) return warnings;
  const note = asked
    ? `service_tier "priority": the answer ended before any event named its tier, billed at the tier asked for, tokens at ×${price.priority}`
    : `service_tier "priority": served at OpenAI's Priority tier, tokens billed at ×${price.priority}`;
  return [...warnings, note];
}

/** The request path without its query string (the log's `path`). */
function pathOf(url: string): string {
  const queryStart = url.indexOf('?');
  return queryStart < 0 ? url : url.slice(0, queryStart);
}
