import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SettleInput, SettleOutcome } from './quota-ledger.js';
import { SettleRetryQueue } from './settle-retry-queue.js';

/** A ledger whose database is down until `up()`; it records each settle tried, with the time it was tried at. */
function flakyLedger() {
  let reachable = false;
  const settledIds = new Set<string>();
  const tries: { id: string; at: number }[] = [];
  return {
    tries,
    up: () => (reachable = true),
    down: () => (reachable = false),
    /** Settles once the server committed it but its answer was lost. */
    commitUnseen: (id: string) => settledIds.add(id),
    settle(reservationId: string, input: SettleInput): Promise<SettleOutcome> {
      tries.push({ id: reservationId, at: Date.now() });
      if (!reachable) return Promise.reject(new Error('Connection terminated unexpectedly'));
      if (settledIds.has(reservationId)) return Promise.resolve({ applied: false, charged: 0 });
      settledIds.add(reservationId);
      return Promise.resolve({ applied: true, charged: input.actualAmount });
    },
  };
}

const input = (actualAmount: number): SettleInput => ({ actualAmount, channelId: 3 });

describe('SettleRetryQueue', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('tries a failed settle again after 0.5 s, doubling the wait up to 30 s, until it goes through', async () => {
    const ledger = flakyLedger();
    const failures: number[] = [];
    const charges: number[] = [];
    const queue = new SettleRetryQueue(ledger, { firstDelayMs: 500, maxDelayMs: 30_000, now: Date.now, onFailure: (_error, _id, tries) => failures.push(tries) });
    queue.add({ reservationId: 'request-1', input: input(86), onSettled: (charged) => charges.push(charged) }, new Error('first try'));
    await vi.advanceTimersByTimeAsync(0.5e3 + 1e3 + 2e3 + 4e3 + 8e3 + 16e3 + 30e3 + 30e3);
    expect(ledger.tries.map((attempt) => attempt.at)).toEqual([500, 1500, 3500, 7500, 15500, 31500, 61500, 91500]);
    expect(queue.size).toBe(1);
    ledger.up();
    await vi.advanceTimersByTimeAsync(30e3);
    expect({ charges, size: queue.size, failures }).toEqual({ charges: [86], size: 0, failures: [1, 2, 3, 4, 5, 6, 7, 8, 9] });
  });

  it('reports the actual amount when an earlier try committed the settle but its answer was lost', async () => {
    const ledger = flakyLedger();
    const charges: number[] = [];
    const queue = new SettleRetryQueue(ledger, { firstDelayMs: 500, maxDelayMs: 30_000, now: Date.now });
    ledger.commitUnseen('request-1');
    ledger.up();
    queue.add({ reservationId: 'request-1', input: input(86), onSettled: (charged) => charges.push(charged) }, new Error('answer lost'));
    await vi.advanceTimersByTimeAsync(500);
    expect({ charges, size: queue.size }).toEqual({ charges: [86], size: 0 });
  });

  it('tells what a settle found settled already had moved, read back, and whether recovery logged it; a read that fails is a failed try', async () => {
    const ledger = flakyLedger();
    ledger.up();
    ledger.commitUnseen('capped');
    ledger.commitUnseen('swept');
    ledger.commitUnseen('gone');
    const found = new Map([
      ['capped', { charged: 1100, loggedByRecovery: false }],
      ['swept', { charged: 1000, loggedByRecovery: true }],
    ]);
    let readable = false;
    const failures: number[] = [];
    const heard: unknown[] = [];
    const queue = new SettleRetryQueue(ledger, {
      firstDelayMs: 500,
      maxDelayMs: 30_000,
      now: Date.now,
      onFailure: (_error, _id, tries) => failures.push(tries),
      settlementOf: async (id) => {
        if (!readable) throw new Error('Connection terminated unexpectedly');
        return found.get(id);
      },
    });
    queue.add({ reservationId: 'capped', input: input(5000), onSettled: (charged, logged) => heard.push(['capped', charged, logged]) }, new Error('answer lost'));
    await vi.advanceTimersByTimeAsync(500);
    expect({ heard, failures, size: queue.size }).toEqual({ heard: [], failures: [1, 2], size: 1 });
    readable = true;
    queue.add({ reservationId: 'swept', input: input(86), onSettled: (charged, logged) => heard.push(['swept', charged, logged]) }, new Error('down'));
    queue.add({ reservationId: 'gone', input: input(7), onSettled: (charged, logged) => heard.push(['gone', charged, logged]) }, new Error('down'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(heard).toEqual([
      ['swept', 1000, true],
      ['gone', 7, false],
      ['capped', 1100, false],
    ]);
    expect(queue.size).toBe(0);
  });

  it('makes the settle of a reserve whose outcome is unknown again while it finds nothing open, as often as it is told', async () => {
    const ledger = flakyLedger();
    ledger.up();
    const queue = new SettleRetryQueue(ledger, { firstDelayMs: 500, maxDelayMs: 30_000, now: Date.now });
    // The reserve's statement commits on the server only after the first two releases found nothing.
    const settle = ledger.settle.bind(ledger);
    let reserved = false;
    const applied: boolean[] = [];
    const committingLate = {
      settle: async (id: string, settleInput: SettleInput) => {
        if (!reserved) {
          ledger.tries.push({ id, at: Date.now() });
          applied.push(false);
          if (ledger.tries.length === 2) reserved = true;
          return { applied: false, charged: 0 };
        }
        const outcome = await settle(id, settleInput);
        applied.push(outcome.applied);
        return outcome;
      },
    };
    const releases = new SettleRetryQueue(committingLate, { firstDelayMs: 500, maxDelayMs: 30_000, now: Date.now });
    releases.add({ reservationId: 'unknown', input: input(0), recheck: 5 }, new Error('answer lost'));
    await vi.advanceTimersByTimeAsync(60_000);
    expect({ tries: ledger.tries.map((attempt) => attempt.at), applied, size: releases.size }).toEqual({ tries: [500, 1500, 3500], applied: [false, false, true], size: 0 });
    // Without rechecks, a settle that finds nothing open is done with.
    queue.add({ reservationId: 'never-reserved', input: input(0) }, new Error('down'));
    await vi.advanceTimersByTimeAsync(500);
    await vi.advanceTimersByTimeAsync(60_000);
    expect({ tries: ledger.tries.filter((attempt) => attempt.id === 'never-reserved').length, size: queue.size }).toEqual({ tries: 1, size: 0 });
  });

  it('does not make again, at shutdown, a release whose try was under way when it began: it is done with', async () => {
    let answer: (outcome: SettleOutcome) => void = () => undefined;
    const slow = { settle: () => new Promise<SettleOutcome>((resolve) => (answer = resolve)) };
    const queue = new SettleRetryQueue(slow, { firstDelayMs: 500, maxDelayMs: 30_000, now: Date.now });
    queue.add({ reservationId: 'unknown', input: input(0), recheck: 5 }, new Error('answer lost'));
    await vi.advanceTimersByTimeAsync(500);
    const closed = queue.close(1000);
    answer({ applied: false, charged: 0 });
    expect(await closed).toBe(0);
  });

  it('keeps each settle on its own schedule and never lets one block another', async () => {
    const ledger = flakyLedger();
    const queue = new SettleRetryQueue(ledger, { firstDelayMs: 500, maxDelayMs: 30_000, now: Date.now });
    queue.add({ reservationId: 'early', input: input(1) }, new Error('down'));
    await vi.advanceTimersByTimeAsync(1000);
    queue.add({ reservationId: 'late', input: input(2) }, new Error('down'));
    ledger.up();
    await vi.advanceTimersByTimeAsync(500);
    // 'early' tried at 500 (failed), next at 1500; 'late' at 1500: both through.
    expect({ tries: ledger.tries.map((attempt) => `${attempt.id}@${attempt.at}`), size: queue.size }).toEqual({ tries: ['early@500', 'early@1500', 'late@1500'], size: 0 });
  });

  it('at close, tries each waiting settle once more at once, and leaves what still fails to start-up recovery', async () => {
    const ledger = flakyLedger();
    const charges: string[] = [];
    const queue = new SettleRetryQueue(ledger, { firstDelayMs: 500, maxDelayMs: 30_000, now: Date.now });
    queue.add({ reservationId: 'a', input: input(1), onSettled: () => charges.push('a') }, new Error('down'));
    expect(await queue.close(1000)).toBe(1);
    expect(ledger.tries.map((attempt) => attempt.at)).toEqual([0]);
    // No more tries after close.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(ledger.tries).toHaveLength(1);
    // A settle that fails during shutdown gets its one try at once, and it can go through.
    ledger.up();
    queue.add({ reservationId: 'b', input: input(2), onSettled: () => charges.push('b') }, new Error('down'));
    await vi.advanceTimersByTimeAsync(0);
    expect({ charges, size: queue.size }).toEqual({ charges: ['b'], size: 1 });
  });

  it('waits at most its bound at close for a try that hangs', async () => {
    const hanging = { settle: () => new Promise<SettleOutcome>(() => undefined) };
    const queue = new SettleRetryQueue(hanging, { firstDelayMs: 500, maxDelayMs: 30_000, now: Date.now });
    queue.add({ reservationId: 'a', input: input(1) }, new Error('down'));
    const closed = queue.close(2000);
    await vi.advanceTimersByTimeAsync(2000);
    expect(await closed).toBe(1);
  });
});
