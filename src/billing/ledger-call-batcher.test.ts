import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LedgerCallBatcher, type LedgerBatch, type LedgerCalls, type ReserveCall, type SettleCall } from './ledger-call-batcher.js';
import type { ReserveOutcome, SettleOutcome } from './quota-ledger.js';

const reserveCall = (id: string, amount = 100): ReserveCall => ({ id, tokenId: 1, userId: 1, amount, now: 1 });
const settleCall = (reservationId: string, actual = 50): SettleCall => ({ reservationId, actual, channelId: null, now: 1 });

/**
 * A database in memory: reserves succeed while the balance covers them, settles answer their actual
 * amount. It records what was sent, and a batch holding a listed id fails as a whole.
 */
function recordingCalls(options: { balance?: number; failBatchesWith?: string[]; failAloneWith?: string[] } = {}) {
  let balance = options.balance ?? Number.POSITIVE_INFINITY;
  const sent: { batch?: LedgerBatch; alone?: string }[] = [];
  let unanswered: (() => void)[] = [];
  let holdAnswers = false;
  const answered = () => (holdAnswers ? new Promise<void>((resolve) => unanswered.push(resolve)) : Promise.resolve());
  const reserveOne = (call: ReserveCall): ReserveOutcome => {
    if (options.failAloneWith?.includes(call.id)) throw new Error(`reserve ${call.id} failed`);
    if (call.amount > balance) return { ok: false, short: 'token' };
    balance -= call.amount;
    return { ok: true };
  };
  const calls: LedgerCalls = {
    async batch(batch) {
      sent.push({ batch });
      await answered();
      const ids = [...batch.reserves.map((call) => call.id), ...batch.settles.map((call) => call.reservationId)];
      if (ids.some((id) => options.failBatchesWith?.includes(id))) throw new Error('batch failed');
      const settles: SettleOutcome[] = batch.settles.map((call) => ({ applied: true, charged: call.actual }));
      return { settles, reserves: batch.reserves.map(reserveOne) };
    },
    async reserve(call) {
      sent.push({ alone: call.id });
      await answered();
      return reserveOne(call);
    },
    async settle(call) {
      sent.push({ alone: call.reservationId });
      await answered();
      return { applied: true, charged: call.actual };
    },
  };
  return {
    calls,
    sent,
    holdAnswers() {
      holdAnswers = true;
    },
    answerAll() {
      holdAnswers = false;
      const waiting = unanswered;
      unanswered = [];
      for (const resolve of waiting) resolve();
    },
  };
}

describe('LedgerCallBatcher', () => {
  it('sends the calls of one turn as one batch, settles first, and answers each caller its own outcome', async () => {
    const database = recordingCalls({ balance: 250 });
    const batcher = new LedgerCallBatcher(database.calls, { maxInFlight: 2, maxCalls: 100, rolledBack: () => true });
    const outcomes = await Promise.all([batcher.reserve(reserveCall('a')), batcher.settle(settleCall('s', 70)), batcher.reserve(reserveCall('b')), batcher.reserve(reserveCall('c'))]);
    expect(outcomes).toEqual([{ ok: true }, { applied: true, charged: 70 }, { ok: true }, { ok: false, short: 'token' }]);
    expect(database.sent).toHaveLength(1);
    expect(database.sent[0]?.batch?.settles.map((call) => call.reservationId)).toEqual(['s']);
    expect(database.sent[0]?.batch?.reserves.map((call) => call.id)).toEqual(['a', 'b', 'c']);
  });

  it('sends a call that is alone in its turn through the single routine', async () => {
    const database = recordingCalls();
    const batcher = new LedgerCallBatcher(database.calls, { maxInFlight: 2, maxCalls: 100, rolledBack: () => true });
    expect(await batcher.reserve(reserveCall('a'))).toEqual({ ok: true });
    expect(await batcher.settle(settleCall('a', 30))).toEqual({ applied: true, charged: 30 });
    expect(database.sent).toEqual([{ alone: 'a' }, { alone: 'a' }]);
  });

  it('runs each call of a failed batch on its own, so only the faulty call fails', async () => {
    const database = recordingCalls({ failBatchesWith: ['bad'], failAloneWith: ['bad'] });
    const batcher = new LedgerCallBatcher(database.calls, { maxInFlight: 2, maxCalls: 100, rolledBack: () => true });
    const outcomes = await Promise.allSettled([batcher.reserve(reserveCall('a')), batcher.reserve(reserveCall('bad')), batcher.settle(settleCall('s'))]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('reserve bad failed'));
    expect(database.sent.map((entry) => entry.alone ?? 'batch')).toEqual(['batch', 's', 'a', 'bad']);
  });

  it('runs the calls of a failed batch again one after the other, never two at once', async () => {
    let inFlight = 0;
    let mostAtOnce = 0;
    const order: string[] = [];
    const alone = async (id: string) => {
      inFlight += 1;
      mostAtOnce = Math.max(mostAtOnce, inFlight);
      await nextTurn();
      await nextTurn();
      order.push(id);
      inFlight -= 1;
    };
    const calls: LedgerCalls = {
      batch: async () => Promise.reject(new Error('deadlock')),
      reserve: async (call) => alone(call.id).then(() => ({ ok: true })),
      settle: async (call) => alone(call.reservationId).then(() => ({ applied: true, charged: call.actual })),
    };
    const batcher = new LedgerCallBatcher(calls, { maxInFlight: 1, maxCalls: 100, rolledBack: () => true });
    await Promise.all([batcher.reserve(reserveCall('a')), batcher.settle(settleCall('s')), batcher.reserve(reserveCall('b'))]);
    expect(mostAtOnce).toBe(1);
    expect(order).toEqual(['s', 'a', 'b']);
  });

  it('fails every call of a batch whose outcome is unknown, running none of them again', async () => {
    const database = recordingCalls({ failBatchesWith: ['a'] });
    const failures: unknown[] = [];
    const batcher = new LedgerCallBatcher(database.calls, { maxInFlight: 2, maxCalls: 100, rolledBack: () => false, onBatchFailed: (error) => failures.push(error) });
    const outcomes = await Promise.allSettled([batcher.reserve(reserveCall('a')), batcher.settle(settleCall('s'))]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: new Error('batch failed') },
      { status: 'rejected', reason: new Error('batch failed') },
    ]);
    expect(failures).toEqual([new Error('batch failed')]);
    expect(database.sent.map((entry) => entry.alone ?? 'batch')).toEqual(['batch']);
  });

  it('holds the calls that arrive while maxInFlight batches are out, and sends them together when one is answered', async () => {
    const database = recordingCalls();
    const batcher = new LedgerCallBatcher(database.calls, { maxInFlight: 1, maxCalls: 100, rolledBack: () => true });
    database.holdAnswers();
    const first = Promise.all([batcher.reserve(reserveCall('a')), batcher.reserve(reserveCall('b'))]);
    await nextTurn();
    const later = [batcher.reserve(reserveCall('c'))];
    await nextTurn();
    later.push(batcher.reserve(reserveCall('d')), batcher.reserve(reserveCall('e')));
    await nextTurn();
    expect(database.sent).toHaveLength(1);
    database.answerAll();
    await first;
    await nextTurn();
    database.answerAll();
    await Promise.all(later);
    expect(database.sent.map((entry) => entry.batch?.reserves.map((call) => call.id))).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });

  it('splits a turn into batches of at most maxCalls, all out at once within maxInFlight', async () => {
    const database = recordingCalls();
    const batcher = new LedgerCallBatcher(database.calls, { maxInFlight: 3, maxCalls: 2, rolledBack: () => true });
    database.holdAnswers();
    const all = Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => batcher.reserve(reserveCall(id))));
    await nextTurn();
    expect(database.sent.map((entry) => entry.batch?.reserves.map((call) => call.id))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ]);
    database.answerAll();
    await new Promise((resolve) => setTimeout(resolve, 10));
    database.answerAll();
    await all;
    expect(database.sent.at(-1)).toEqual({ alone: 'g' });
  });
});
