import { describe, expect, it } from 'vitest';
import type { RecoveredReservation } from '../billing/quota-ledger.js';
import type { LogRow } from '../storage/logs-repository.js';
import { beatLogRun, deadRunAfterMs, foreignSettlementGraceMs, logRunKey, markLogRunClean, recoverDeadRunsLogRows, recoverLostLogRows, type LostLogRowsStore } from './recover-lost-log-rows.js';

/** `unlogged`: each owner's lost charges; `claimed`: the ids another recovery wrote already. */
function memoryStore(options: Record<string, string>, unlogged: Record<string, RecoveredReservation[]>, claimed = new Set<string>()) {
  const asked: { owner: string; since: number; settledBefore?: number }[] = [];
  const inserted: LogRow[] = [];
  const store: LostLogRowsStore = {
    readOption: async (key) => options[key],
    writeOption: async (key, value) => {
      options[key] = value;
    },
    replaceOption: async (key, expected, value) => {
      if (options[key] !== expected) return false;
      options[key] = value;
      return true;
    },
    readRunMarks: async () => new Map(Object.entries(options).flatMap(([key, value]) => (key.startsWith('log_run:') ? [[key.slice('log_run:'.length), value] as const] : []))),
    findUnlogged: async (owner, since, settledBefore) => {
      asked.push(settledBefore === undefined ? { owner, since } : { owner, since, settledBefore });
      return unlogged[owner] ?? [];
    },
    insertRecovered: async (reservation, row) => {
      if (claimed.has(reservation.id)) return false;
      claimed.add(reservation.id);
      inserted.push(row);
      return true;
    },
  };
  return { store, asked, inserted, options };
}

const reservation = (index: number, owner = 'n'): RecoveredReservation => ({ id: `${owner}-r${index}`, tokenId: 1, userId: 2, owner, createdAt: 1000 + index, charged: index + 1, model: 'gpt-4o', channelId: 3 });
const row = (reservation: RecoveredReservation) => ({ request_id: reservation.id, quota: reservation.charged }) as unknown as LogRow;
const now = 100 * 60 * 60 * 1000;

describe('recoverLostLogRows', () => {
  it('writes rows for the unlogged charges since the start of a run that did not end cleanly, then marks this run', async () => {
    const lost = Array.from({ length: 150 }, (_, index) => reservation(index));
    const { store, asked, inserted, options } = memoryStore({ [logRunKey('n')]: '5000' }, { n: lost });
    const result = await recoverLostLogRows(store, 'n', now, row);
    expect(asked).toEqual([{ owner: 'n', since: 5000 }]);
    expect(inserted).toHaveLength(150);
    expect(result).toEqual({ rows: 150, quota: lost.reduce((total, entry) => total + entry.charged, 0) });
    expect(options[logRunKey('n')]).toBe(String(now));
  });

  it('reads the start of a mark that was beaten', async () => {
    const { store, asked } = memoryStore({ [logRunKey('n')]: `5000:${now - 1000}` }, { n: [reservation(1)] });
    expect(await recoverLostLogRows(store, 'n', now, row)).toEqual({ rows: 1, quota: 2 });
    expect(asked).toEqual([{ owner: 'n', since: 5000 }]);
  });

  it('looks for nothing after a clean end or on a first start, and still marks this run', async () => {
    for (const previous of ['clean', undefined]) {
      const { store, asked, options } = memoryStore(previous === undefined ? {} : { [logRunKey('n')]: previous }, { n: [reservation(1)] });
      expect(await recoverLostLogRows(store, 'n', now, row)).toEqual({ rows: 0, quota: 0 });
      expect(asked).toEqual([]);
      expect(options[logRunKey('n')]).toBe(String(now));
    }
  });

  it('counts only the rows it wrote: one another recovery claimed first is not written twice', async () => {
    const lost = [reservation(1), reservation(2)];
    const { store, inserted } = memoryStore({ [logRunKey('n')]: '5000' }, { n: lost }, new Set([lost[0]!.id]));
    expect(await recoverLostLogRows(store, 'n', now, row)).toEqual({ rows: 1, quota: 3 });
    expect(inserted.map((entry) => entry.request_id)).toEqual([lost[1]!.id]);
  });

  it('keeps the older mark when writing the rows fails, so the next start looks from there', async () => {
    const { store, options } = memoryStore({ [logRunKey('n')]: '5000' }, { n: [reservation(1)] });
    store.insertRecovered = async () => {
      throw new Error('down');
    };
    await expect(recoverLostLogRows(store, 'n', now, row)).rejects.toThrow('down');
    expect(options[logRunKey('n')]).toBe('5000');
    await markLogRunClean(store, 'n');
    expect(options[logRunKey('n')]).toBe('clean');
  });
});

describe('recoverDeadRunsLogRows', () => {
  it('writes the lost rows of another node whose run stopped beating, settled before the grace, and marks that run clean', async () => {
    const { store, asked, inserted, options } = memoryStore({ [logRunKey('gone')]: `7000:${now - deadRunAfterMs}` }, { gone: [reservation(1, 'gone')] });
    expect(await recoverLostLogRows(store, 'n', now, row)).toEqual({ rows: 1, quota: 2 });
    expect(asked).toEqual([{ owner: 'gone', since: 7000, settledBefore: now - foreignSettlementGraceMs }]);
    expect(inserted.map((entry) => entry.request_id)).toEqual(['gone-r1']);
    expect(options[logRunKey('gone')]).toBe('clean');
  });

  it('leaves alone the runs of other nodes that beat recently, that ended cleanly, and its own', async () => {
    const { store, asked, options } = memoryStore(
      { [logRunKey('alive')]: `7000:${now - deadRunAfterMs + 1}`, [logRunKey('started')]: String(now - 60_000), [logRunKey('done')]: 'clean', [logRunKey('n')]: '5000' },
      { alive: [reservation(1, 'alive')], started: [reservation(1, 'started')], n: [] },
    );
    expect(await recoverDeadRunsLogRows(store, 'n', now, row)).toEqual({ rows: 0, quota: 0 });
    expect(asked).toEqual([]);
    expect(options[logRunKey('alive')]).toBe(`7000:${now - deadRunAfterMs + 1}`);
  });

  it('keeps the mark of a run that beat while its rows were being written (alive after all)', async () => {
    const dead = `7000:${now - deadRunAfterMs - 1}`;
    const { store, options } = memoryStore({ [logRunKey('slow')]: dead }, { slow: [reservation(1, 'slow')] });
    const insert = store.insertRecovered;
    store.insertRecovered = async (lost, lostRow) => {
      options[logRunKey('slow')] = `7000:${now}`;
      return insert(lost, lostRow);
    };
    await recoverDeadRunsLogRows(store, 'n', now, row);
    expect(options[logRunKey('slow')]).toBe(`7000:${now}`);
  });
});

describe('a run taken for dead while alive', () => {
  it('a node of the previous version (it marks its start and its clean end, never beats): written for once, then left alone whatever it does', async () => {
    const started = now - deadRunAfterMs - 1;
    const { store, asked, inserted, options } = memoryStore({ [logRunKey('old')]: String(started) }, { old: [reservation(1, 'old')] });
    expect(await recoverDeadRunsLogRows(store, 'n', now, row)).toEqual({ rows: 1, quota: 2 });
    expect(options[logRunKey('old')]).toBe('clean');
    // Still running: the next sweeps look at it no more.
    expect(await recoverDeadRunsLogRows(store, 'n', now + deadRunAfterMs, row)).toEqual({ rows: 0, quota: 0 });
    expect(asked).toHaveLength(1);
    // Its clean end writes what is there; its next start (this version) looks for nothing and marks its run.
    await markLogRunClean(store, 'old');
    expect(options[logRunKey('old')]).toBe('clean');
    expect(await recoverLostLogRows(store, 'old', now + 2 * deadRunAfterMs, row)).toEqual({ rows: 0, quota: 0 });
    expect(options[logRunKey('old')]).toBe(String(now + 2 * deadRunAfterMs));
    expect(asked).toHaveLength(1);
    expect(inserted.map((entry) => entry.request_id)).toEqual(['old-r1']);
  });

  it('a node of this version cut off for hours: its first beat after it reaches the database again takes its run back from its start', async () => {
    const runStart = 5000;
    const { store, asked, options } = memoryStore({ [logRunKey('cut')]: `${runStart}:${now - deadRunAfterMs - 1}` }, { cut: [] });
    await recoverDeadRunsLogRows(store, 'n', now, row);
    expect(options[logRunKey('cut')]).toBe('clean');
    await beatLogRun(store, 'cut', runStart, now + 1000);
    expect(options[logRunKey('cut')]).toBe(`${runStart}:${now + 1000}`);
    // Alive again for the others, and a crash from here is looked at from its start by its next start.
    await recoverDeadRunsLogRows(store, 'n', now + 2000, row);
    expect(asked).toEqual([{ owner: 'cut', since: runStart, settledBefore: now - foreignSettlementGraceMs }]);
    await recoverLostLogRows(store, 'cut', now + 3000, row);
    expect(asked.at(-1)).toEqual({ owner: 'cut', since: runStart });
  });
});

describe('beatLogRun', () => {
  it('beats the mark, keeping an older start left by a failed recovery', async () => {
    const { store, options } = memoryStore({ [logRunKey('n')]: '5000' }, {});
    await beatLogRun(store, 'n', 9000, now);
    expect(options[logRunKey('n')]).toBe(`5000:${now}`);
    options[logRunKey('n')] = 'clean';
    await beatLogRun(store, 'n', 9000, now + 1);
    expect(options[logRunKey('n')]).toBe(`9000:${now + 1}`);
  });
});
