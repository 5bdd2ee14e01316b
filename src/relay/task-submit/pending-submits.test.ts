import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SubmittedTask, TaskRow } from '../../storage/tasks-repository.js';
import { orphanAfterMs } from '../../tasks/task-engine.js';
import { PendingSubmits, submitRetry } from './pending-submits.js';

const submitted: SubmittedTask = { channelId: 3, keyFingerprint: 'fp', upstreamModel: 'sora-2', upstreamId: 'video_up_1', status: 'queued', progress: 0, result: '{}', nextPollAt: 0 };
const task = { id: 7, publicId: 'task_blip', userId: 11 };
const lost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });

/**
 * A tasks table that refuses the first `refusals` writes of each kind, then takes them; `rowAfter` is the
 * row `findById` reads once a `markSubmitted` found it had left `not_start`. Each write's clock time is kept.
 */
function fakeTasks(refusals: number, rowAfter?: Partial<TaskRow>) {
  const tries: number[] = [];
  let left = refusals;
  const attempt = () => {
    tries.push(Date.now());
    if (left > 0) {
      left -= 1;
      throw lost();
    }
  };
  return {
    tries,
    store: {
      markSubmitted: vi.fn(async () => {
        attempt();
        return rowAfter === undefined;
      }),
      findById: vi.fn(async () => rowAfter as TaskRow | undefined),
      recordCharge: vi.fn(async () => attempt()),
    },
  };
}

describe('PendingSubmits on its default schedule (submitRetry), on a fake clock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The clock times of the 12 tries: 0.5 s after the request gave up, then each wait doubled, up to 30 s. */
  const scheduledTries = [500, 1500, 3500, 7500, 15_500, 31_500, 61_500, 91_500, 121_500, 151_500, 181_500, 211_500];

  it('tries a refused submitted state 12 times in about three and a half minutes, holds the row meanwhile, then reports it once and stops', async () => {
    const { tries, store } = fakeTasks(Infinity);
    const report = vi.fn();
    const pending = new PendingSubmits(store, { report, now: () => Date.now() });

    pending.hold(task, submitted);
    expect(pending.isHeld(task.id)).toBe(true);
    await vi.advanceTimersByTimeAsync(211_499);
    expect(tries).toEqual(scheduledTries.slice(0, 11));
    expect(pending.isHeld(task.id)).toBe(true);
    expect(report).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(1);
    expect(tries).toEqual(scheduledTries);
    expect(submitRetry.tries).toBe(12);
    // Given up well before the orphan sweep would take the row: the sweep then refunds it.
    expect(scheduledTries.at(-1)).toBeLessThan(orphanAfterMs);
    expect(pending.isHeld(task.id)).toBe(false);
    expect(report).toHaveBeenCalledTimes(1);
    expect(report.mock.calls[0]?.[0]).toContain('task task_blip (row 7) of user 11 was accepted by channel 3 (upstream id "video_up_1")');
    expect(report.mock.calls[0]?.[0]).toContain('with parameters [3,"fp","sora-2","video_up_1","queued",7]');

    await vi.advanceTimersByTimeAsync(orphanAfterMs);
    expect(tries).toHaveLength(12);
    await pending.close();
    expect(tries).toHaveLength(12);
  });

  it('lands on the last try: no report, the row no longer held', async () => {
    const { tries, store } = fakeTasks(11);
    const report = vi.fn();
    const pending = new PendingSubmits(store, { report, now: () => Date.now() });

    pending.hold(task, submitted);
    await vi.advanceTimersByTimeAsync(211_500);
    expect(tries).toEqual(scheduledTries);
    expect(store.markSubmitted).toHaveBeenCalledTimes(12);
    expect(pending.isHeld(task.id)).toBe(false);
    expect(report).not.toHaveBeenCalled();
  });

  it('a write that went through unheard (the row holds its upstream id) counts as written; a row another sweep failed first is reported, not overwritten', async () => {
    const landed = fakeTasks(0, { upstream_id: 'video_up_1', channel_id: 3 });
    const quiet = vi.fn();
    const first = new PendingSubmits(landed.store, { report: quiet, now: () => Date.now() });
    first.hold(task, submitted);
    await vi.advanceTimersByTimeAsync(500);
    expect(first.isHeld(task.id)).toBe(false);
    expect(quiet).not.toHaveBeenCalled();

    const swept = fakeTasks(0, { upstream_id: null, channel_id: null, status: 'failure' });
    const report = vi.fn();
    const second = new PendingSubmits(swept.store, { report, now: () => Date.now() });
    second.hold(task, submitted);
    await vi.advanceTimersByTimeAsync(500);
    expect(second.isHeld(task.id)).toBe(false);
    expect(report).toHaveBeenCalledTimes(1);
    expect(report.mock.calls[0]?.[0]).toContain('left not_start before its state could be written');
    // One try, no more: the refund stands.
    await vi.advanceTimersByTimeAsync(orphanAfterMs);
    expect(swept.store.markSubmitted).toHaveBeenCalledTimes(1);
  });

  it('shutdown gives a waiting write one more try at once, and a refusal then is its last (reported)', async () => {
    const { tries, store } = fakeTasks(Infinity);
    const report = vi.fn();
    const pending = new PendingSubmits(store, { report, now: () => Date.now() });
    pending.hold(task, submitted);
    await vi.advanceTimersByTimeAsync(1500);
    expect(tries).toEqual([500, 1500]);

    await pending.close();
    expect(tries).toEqual([500, 1500, 1500]);
    expect(report).toHaveBeenCalledTimes(1);
    expect(pending.isHeld(task.id)).toBe(false);
  });

  it('a charge the row would not take is tried on the same schedule, then reported once with the charge', async () => {
    const { tries, store } = fakeTasks(Infinity);
    const report = vi.fn();
    const pending = new PendingSubmits(store, { report, now: () => Date.now() });

    pending.keepCharge(task, 400_000, lost());
    await vi.advanceTimersByTimeAsync(211_500);
    expect(tries).toEqual(scheduledTries);
    expect(store.recordCharge).toHaveBeenCalledWith(task.id, 400_000);
    expect(report).toHaveBeenCalledTimes(1);
    expect(report.mock.calls[0]?.[0]).toContain('task task_blip (row 7) of user 11 was charged 400000, but the charge could not be kept on its row');
    // Keeping a charge does not hold the row from the orphan sweep: its submitted state is written.
    expect(pending.isHeld(task.id)).toBe(false);
  });
});

/** An upstream id an upstream may choose: both quotes, backslashes before a quote and at the end, a newline, a CR, a tab. */
const hostileId = `vid'eo "x" \\' \\\\ end\nDROP TABLE tasks; --\r\tlast\\`;

const hostileSubmitted: SubmittedTask = {
  channelId: 7,
  keyFingerprint: 'fp-0123abcd',
  upstreamModel: `sora-2 'pro' \\ "hd"`,
  upstreamId: hostileId,
  status: 'queued',
  progress: 0,
  result: '{}',
  nextPollAt: 0,
};

/** PendingSubmits on a database that refuses every write: what the operator is told once it gives up. */
async function reportOfGivenUp(): Promise<string[]> {
  const lines: string[] = [];
  const refused = () => Promise.reject(new Error('database down'));
  const pending = new PendingSubmits({ markSubmitted: refused, findById: refused, recordCharge: refused }, { report: (line) => lines.push(line), now: () => 1_000, schedule: { firstDelayMs: 60_000, maxDelayMs: 60_000, tries: 1 } });
  pending.hold({ id: 42, publicId: 'task_abc', userId: 3 }, hostileSubmitted);
  await pending.close();
  return lines;
}

/** The restore statement and its parameters, out of the operator's line. */
function restoreOf(line: string): { statement: string; parameters: unknown[] } {
  const match = /restored first with: (UPDATE tasks [^[]*) with parameters (\[.*\])$/.exec(line);
  expect(match, line).not.toBeNull();
  return { statement: match![1]!, parameters: JSON.parse(match![2]!) as unknown[] };
}

describe('PendingSubmits', () => {
  it('tells the operator, on one line, the upstream id and a restore statement whose values are parameters, for an id of quotes, backslashes and newlines', async () => {
    const lines = await reportOfGivenUp();
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).not.toMatch(/[\n\r]/);
    expect(line).toContain(`(upstream id ${JSON.stringify(hostileId)})`);
    const { statement, parameters } = restoreOf(line);
    expect(parameters).toEqual([7, 'fp-0123abcd', hostileSubmitted.upstreamModel, hostileId, 'queued', 42]);
    // No value is spliced into the SQL.
    expect(statement).not.toContain('vid');
    expect(statement).not.toContain('sora-2');
  });

  it('prints a restore statement that, run with its parameters, writes the submitted state exactly onto the not_start row', async () => {
    const { statement, parameters } = restoreOf((await reportOfGivenUp())[0]!);
    const database = new Database(':memory:');
    database.exec("CREATE TABLE tasks (id INTEGER PRIMARY KEY, channel_id INTEGER, key_fingerprint TEXT, upstream_model TEXT, upstream_id TEXT, status TEXT, next_poll_at INTEGER)");
    database.exec("INSERT INTO tasks VALUES (42, NULL, '', '', NULL, 'not_start', 99), (43, NULL, '', '', NULL, 'not_start', 99)");
    expect(database.prepare(statement).run(...parameters).changes).toBe(1);
    expect(database.prepare('SELECT * FROM tasks ORDER BY id').all()).toEqual([
      { id: 42, channel_id: 7, key_fingerprint: 'fp-0123abcd', upstream_model: hostileSubmitted.upstreamModel, upstream_id: hostileId, status: 'queued', next_poll_at: 0 },
      { id: 43, channel_id: null, key_fingerprint: '', upstream_model: '', upstream_id: null, status: 'not_start', next_poll_at: 99 },
    ]);
    // Once restored, not again: the statement touches only a not_start row.
    expect(database.prepare(statement).run(...parameters).changes).toBe(0);
    database.close();
  });
});
