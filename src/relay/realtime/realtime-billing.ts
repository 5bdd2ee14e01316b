import type { AuthenticatedCaller } from '../../auth/authenticate-token.js';
import { computeCharge, isPriced } from '../../billing/compute-charge.js';
import { emptyUsage, type NormalizedUsage, type UsageSource } from '../../billing/normalized-usage.js';
import type { SettleOutcome } from '../../billing/quota-ledger.js';
import type { PriceRecord } from '../../catalog/catalog-records.js';
import { formatErrorLogText } from '../../errors/format-error-log-text.js';
import type { GatewayError } from '../../errors/gateway-error.js';
import type { Admission } from '../admit-request.js';
import { buildLogRow } from '../build-log-row.js';
import { addToTokenWindows } from '../add-to-token-windows.js';
import { correctTokenWindows } from '../correct-token-windows.js';
import { releaseUnknownReserve } from '../release-unknown-reserve.js';
import type { RelayServices } from '../relay-services.js';
import type { AttemptRecord } from '../run-failover.js';
import { settleOrRetry } from '../settle-or-retry.js';
import { priceTranscription } from './price-transcription.js';
import type { TranscriptionUsage } from './read-transcription.js';
import { usageOfCounts } from './response-count.js';
import { echoesNothing } from './response-request-queue.js';
import { ResponsesUnderWay } from './responses-under-way.js';
import type { CreatedResponse } from './select-response-request.js';

export interface RealtimeSessionFacts {
  /** The session's request id: its first hold's reservation id; later holds are `<id>-<n>`. */
  requestId: string;
  caller: AuthenticatedCaller;
  admission: Admission;
  model: string;
  upstreamModel: string;
  channelId: number;
  ip: string;
  attempts: AttemptRecord[];
  /** The tokens one hold covers (its input and the model's output budget), as admission estimated them. */
  holdTokens: number;
  /**
   * Why the caller may no longer be served (its key disabled, expired or limited, its user disabled since
   * the session opened), asked before each next hold; undefined while it may.
   */
  refusal(): GatewayError | undefined;
}

/**
 * The money of one realtime session (docs/behaviour.md "Realtime"). A session always holds one
 * reservation — the admission's size: a response's worth of input and output at the model's price — and
 * each `response.done` settles the open hold at what that response used, logs it, and takes the next hold.
 * When the next cannot be taken (the key or the wallet is short) the session must end; a hold of nothing
 * is taken in its place, so the responses still under way are billed what the balances still cover. A next
 * hold the database fails (the reserve throws) ends the session the same way: its id is released, a hold of
 * nothing is taken under a fresh id — at the next settlement, when the database fails that too — and a
 * settled hold is never named again (a second settle of it would bill nothing). At the end the open
 * hold is settled: at nothing when no response was under way, else at the text and audio the cut response
 * produced and the text the client put before it, counted locally (response-count.ts). An input-audio transcription the upstream reports settles the open hold the same way,
 * at the transcription model's price (its own log row). Settlements run one after another, in the order
 * the responses and transcriptions ended.
 */
export class RealtimeBilling {
  /**
   * The open hold's reservation id; undefined once it is settled and no next one could be taken (the
   * database failed it): the next settlement takes a hold of nothing first.
   */
  private hold: string | undefined;
  private holds = 1;
  private chain: Promise<unknown> = Promise.resolve();
  /** What the responses under way produced so far, counted from the frames (responses-under-way.ts). */
  readonly responses: ResponsesUnderWay;
  private finished = false;
  private outOfQuota = false;
  /** Why the session may not go on when that is not the balances: the caller's access was withdrawn. */
  private withdrawn: GatewayError | undefined;
  /** The transcription model the upstream's session names (undefined: none named yet). */
  private transcriptionModel: string | undefined;
  /** The admission's token estimate was taken back out of the tokens-per-minute windows it was counted in. */
  private estimateReturned = false;

  constructor(
    private readonly services: RelayServices,
    private readonly session: RealtimeSessionFacts,
  ) {
    this.hold = session.requestId;
    this.responses = new ResponsesUnderWay(() => services.now());
  }

  /** A response ended: billed from the open hold, then the next hold taken. Resolves false when it could not be. */
  responseDone(reported: NormalizedUsage | undefined, responseId: string | undefined, done: CreatedResponse = echoesNothing): Promise<boolean> {
    const tally = this.responses.takeDone(responseId, done);
    return this.enqueue(async () => {
      if (this.finished) return false;
      const usage = reported ?? (await usageOfCounts(tally));
      await this.settleHold(usage, reported === undefined ? 'local' : 'upstream', 200, undefined);
      return this.holdNext();
    });
  }

  /** The upstream's session names (or, with `null`, drops) the model that transcribes the input audio. */
  transcriptionModelSet(model: string | null): void {
    this.transcriptionModel = model ?? undefined;
  }

  /**
   * An input-audio transcription finished: its usage billed from the open hold at the transcription
   * model's price (a log row of its own), then the next hold taken. Resolves false when it could not be.
   */
  transcriptionDone(reported: TranscriptionUsage): Promise<boolean> {
    const startedAt = this.services.now();
    const model = this.transcriptionModel;
    return this.enqueue(async () => {
      if (this.finished) return false;
      const { snapshot } = this.services.catalog;
      const priced = priceTranscription(model, reported, snapshot.prices, snapshot.settings.allowUnpricedModels, { model: this.session.model, price: this.session.admission.price });
      await this.settle(priced.usage, 'upstream', { price: priced.price, calls: priced.calls, model: priced.model, startedAt, warnings: priced.warning === undefined ? [] : [priced.warning] });
      return this.holdNext();
    });
  }

  /** The key or the wallet could not hold the next response, or the caller was refused since: the session must end (no more frames upstream). */
  get exhausted(): boolean {
    return this.outOfQuota;
  }

  /** Why the session ends when the caller's access was withdrawn (else it ended for quota). */
  get refusal(): GatewayError | undefined {
    return this.withdrawn;
  }

  /**
   * Asks whether the caller may still be served; when not, nothing more is relayed upstream (`exhausted`)
   * and the refusal is returned. Responses already under way are still billed.
   */
  checkAccess(): GatewayError | undefined {
    this.withdrawn ??= this.session.refusal();
    if (this.withdrawn !== undefined) this.outOfQuota = true;
    return this.withdrawn;
  }

  /**
   * Takes the next hold. When the balances cannot cover a response's worth, a hold of nothing is taken
   * instead: the responses still under way (and a cut one) settle against it, charged what the balances
   * cover, and the session ends.
   */
  private async holdNext(): Promise<boolean> {
    // A key disabled (or a user, an expiry, a model limit) since the session opened holds nothing more.
    this.checkAccess();
    const amount = this.outOfQuota ? 0 : this.session.admission.reservedAmount;
    let next: { id: string; ok: boolean };
    try {
      next = await this.reserve(amount);
    } catch (error) {
      // The database failed the hold: the session must end (it cannot hold another response), and the
      // responses still under way settle against a hold of nothing, taken now or at the next settlement.
      this.outOfQuota = true;
      this.hold = await this.reserve(0).then(
        (nothing) => (nothing.ok ? nothing.id : undefined),
        () => undefined,
      );
      throw error;
    }
    if (!next.ok && amount > 0) {
      this.outOfQuota = true;
      next = await this.reserve(0);
    }
    if (!next.ok) {
      // Not even nothing can be held (the balance is below zero): what follows is not billed, and the session ends.
      this.finished = true;
      return false;
    }
    this.hold = next.id;
    return !this.outOfQuota;
  }

  /**
   * Reserves `amount` under the session's next hold id. Each try takes an id of its own: one whose reserve
   * threw is being released (it may have been committed), so it is never reserved again.
   */
  private async reserve(amount: number): Promise<{ id: string; ok: boolean }> {
    this.holds += 1;
    const id = `${this.session.requestId}-${this.holds}`;
    try {
      const reserved = await this.services.ledger.reserve({ id, tokenId: this.session.caller.token.id, userId: this.session.caller.user.id, amount, model: this.session.model }, this.services.now());
      return { id, ok: reserved.ok };
    } catch (error) {
      releaseUnknownReserve(this.services, id, [], error);
      throw error;
    }
  }

  /**
   * The open hold, settled by the caller: named no more from here. With none open (the database failed
   * the last one) a hold of nothing is taken first, so what is settled is still charged what the balances
   * cover; undefined when the database fails that too (nothing can be billed then).
   */
  private async takeOpenHold(): Promise<string | undefined> {
    const open = this.hold;
    this.hold = undefined;
    if (open !== undefined) return open;
    try {
      const nothing = await this.reserve(0);
      return nothing.ok ? nothing.id : undefined;
    } catch {
      return undefined;
    }
  }

  /** The session ended: the open hold settled (a response cut mid-way at its local count of text and audio), once. */
  finish(reason: string | undefined): Promise<unknown> {
    const cut = this.responses.cut;
    const tally = this.responses.all();
    return this.enqueue(async () => {
      if (!this.finished) {
        this.finished = true;
        if (!cut) {
          const open = this.hold;
          this.hold = undefined;
          if (open !== undefined) await settleOrRetry(this.services, open, { actualAmount: 0, channelId: this.session.channelId });
        } else await this.settleHold(await usageOfCounts(tally), 'local', 499, reason ?? 'the session ended during a response');
      }
      this.countInWindows(0);
    });
  }

  /**
   * No upstream session could be opened, and the client's upgrade is refused with `error`: the hold is
   * released and one row, charged nothing, keeps why — the attempts, and the upstream's own words the
   * client is not told (`logDetail`: a channel key refused, say).
   */
  async refused(error: GatewayError, startedAt: number): Promise<void> {
    await this.finish(undefined);
    const { session } = this;
    this.services.logWriter.write(
      buildLogRow({
        requestId: session.requestId,
        startedAt,
        finishedAt: this.services.now(),
        firstTokenAt: undefined,
        caller: session.caller,
        channelId: session.attempts.at(-1)?.channel_id,
        model: session.model,
        upstreamModel: session.upstreamModel,
        style: 'openai-realtime',
        path: '/v1/realtime',
        stream: true,
        status: error.status,
        usage: emptyUsage(),
        usageSource: 'none',
        charged: 0,
        attempts: session.attempts,
        warnings: session.admission.warnings,
        ip: session.ip,
        error: formatErrorLogText(error),
      }),
    );
  }

  /**
   * A settlement's tokens counted in the tokens-per-minute windows of the minute it happens in — so a long
   * session spreads over the windows its responses ended in, rather than landing whole in one when it
   * ends. The admission's estimate is taken back first, once, from the window it was counted in (dropped
   * by the limiter when that window has ended): from then on the windows hold what was billed.
   */
  private countInWindows(tokens: number): void {
    const { rateChecks } = this.session.admission;
    const now = this.services.now();
    if (!this.estimateReturned) {
      this.estimateReturned = true;
      correctTokenWindows(this.services.rateLimiter, rateChecks, 0, now);
    }
    addToTokenWindows(this.services.rateLimiter, rateChecks, tokens, now);
  }

  private async settleHold(usage: NormalizedUsage, source: UsageSource, status: number, error: string | undefined): Promise<void> {
    await this.settle(usage, source, { status, error, firstTokenAt: this.responses.timing.firstTokenAt });
    this.responses.settled();
  }

  /** Settles the open hold at `usage` and writes its log row: a response's, unless `row` says otherwise. */
  private async settle(usage: NormalizedUsage, source: UsageSource, row: Partial<BilledRow>): Promise<void> {
    const { admission } = this.session;
    const price = row.price ?? admission.price;
    let actual = 0;
    if (isPriced(price)) {
      try {
        actual = computeCharge(usage, price, admission.groupRatio, admission.quotaPerUnit, row.calls ?? 1);
      } catch {
        // Usage that cannot be priced (negative or absurd counts): the hold, rather than a guess.
        actual = admission.reservedAmount;
      }
    }
    const first = this.hold === this.session.requestId;
    const open = await this.takeOpenHold();
    // The database failed even a hold of nothing: the row says so, under an id of its own.
    const hold = open ?? `${this.session.requestId}-${(this.holds += 1)}`;
    const now = this.services.now();
    // Counts no token count can be are believed nowhere: the tokens windows take the hold's tokens instead
    // (a negative count would empty them, a huge one would leave them uncorrectable), and the log row's
    // integer columns take none (a count beyond them would fail its whole batch); a warning keeps them.
    const counted = countsTokens(usage);
    const warnings = [
      ...(row.warnings ?? []),
      ...(counted ? [] : [`the usage reported counts that are not token counts (input ${usage.input.total}, cached ${usage.input.cacheRead}, output ${usage.output.total}): charged the hold`]),
      ...(open === undefined ? ['the database could not take a hold to settle against: not charged'] : []),
    ];
    this.countInWindows(counted ? usage.input.total + usage.output.total : this.session.holdTokens);
    const logRow = (charged: number) =>
      buildLogRow({
        requestId: hold,
        startedAt: row.startedAt ?? this.responses.timing.startedAt,
        finishedAt: now,
        firstTokenAt: row.firstTokenAt,
        caller: this.session.caller,
        channelId: this.session.channelId,
        model: row.model ?? this.session.model,
        upstreamModel: row.model ?? this.session.upstreamModel,
        style: 'openai-realtime',
        path: '/v1/realtime',
        stream: true,
        status: row.status ?? 200,
        usage: !counted || (source === 'local' && usage.output.total === 0) ? emptyUsage() : usage,
        usageSource: source,
        charged,
        attempts: first ? this.session.attempts : [],
        warnings: [...(first ? admission.warnings : []), ...warnings],
        ip: this.session.ip,
        error: row.error,
      });
    if (open === undefined) {
      this.services.logWriter.write(logRow(0));
      return;
    }
    const settleInput = { actualAmount: actual, channelId: this.session.channelId };
    let settled: SettleOutcome;
    try {
      settled = await this.services.ledger.settle(hold, settleInput, now);
    } catch (error) {
      // The database could not take it: retried in the background, the log row written once it went through.
      const onSettled = (charged: number, loggedByRecovery: boolean) => {
        // Crash recovery settled it first and logged that charge: one charge, one row.
        if (!loggedByRecovery) this.services.logWriter.write(logRow(charged));
      };
      this.services.settleRetries.add({ reservationId: hold, input: settleInput, onSettled }, error);
      return;
    }
    this.services.logWriter.write(logRow(settled.charged));
  }

  /** Runs after the settlements before it; tracked as in flight from now, so shutdown and tests wait for it. */
  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.chain;
    const next = this.services.inFlight.track(() => previous.then(work));
    this.chain = next.catch(() => undefined);
    return next;
  }
}

/** How a settlement's log row differs from a response's. */
interface BilledRow {
  price: PriceRecord;
  calls: number;
  model: string;
  startedAt: number;
  firstTokenAt: number | undefined;
  status: number;
  error: string | undefined;
  warnings: string[];
}

/** Whether a usage's counts are all token counts: whole, not negative, within the safe integers. */
function countsTokens(usage: NormalizedUsage): boolean {
  const { input, output } = usage;
  return [input.total, input.cacheRead, input.cacheWrite, input.audio ?? 0, input.image ?? 0, output.total, output.reasoning, output.audio ?? 0, output.image ?? 0].every((count) => Number.isSafeInteger(count) && count >= 0);
}
