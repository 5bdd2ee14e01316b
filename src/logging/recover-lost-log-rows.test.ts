import { describe, expect, it } from 'vitest';
import type { RecoveredReservation } from '../billing/quota-ledger.js';
import type { LogRow } from '../storage/logs-repository.js';
import { logRunKey, markLogRunClean, recoverLostLogRows, type LostLogRowsStore } from './recover-lost-log-rows.js';

function memoryStore(options: Record<string, string>, unlogged: RecoveredReservation[]) {
  const asked: { owner: string; since: number }[] = [];
  const inserted: LogRow[][] = [];
  const store: LostLogRowsStore = {
    readOption: async (key) => options[key],
    writeOption: async (key, value) => {
      options[key] = value;
    },
    findUnlogged: async (owner, since) => {
      asked.push({ owner, since });
      return unlogged;
    },
    insertRows: async (rows) => {
      inserted.push(rows);
    },
  };
  return { store, asked, inserted, options };
}

const reservation = (index: number): RecoveredReservation => ({ id: `r${index}`, tokenId: 1, userId: 2, owner: 'n', createdAt: 1000 + index, charged: index + 1 });
const row = (reservation: RecoveredReservation) => ({ request_id: reservation.id, quota: reservation.charged }) as unknown as LogRow;

describe('recoverLostLogRows', () => {
  it('writes rows for the unlogged charges since the start of a run that did not end cleanly, in batches of 100, then marks this run', async () => {
    const lost = Array.from({ length: 150 }, (_, index) => reservation(index));
    const { store, asked, inserted, options } = memoryStore({ [logRunKey('n')]: '5000' }, lost);
    const result = await recoverLostLogRows(store, 'n', 9000, row);
    expect(asked).toEqual([{ owner: 'n', since: 5000 }]);
    expect(inserted.map((rows) => rows.length)).toEqual([100, 50]);
    expect(result).toEqual({ rows: 150, quota: lost.reduce((total, entry) => total + entry.charged, 0) });
    expect(options[logRunKey('n')]).toBe('9000');
  });

  it('looks for nothing after a clean end or on a first start, and still marks this run', async () => {
    for (const previous of ['clean', undefined]) {
      const { store, asked, options } = memoryStore(previous === undefined ? {} : { [logRunKey('n')]: previous }, [reservation(1)]);
      expect(await recoverLostLogRows(store, 'n', 9000, row)).toEqual({ rows: 0, quota: 0 });
      expect(asked).toEqual([]);
      expect(options[logRunKey('n')]).toBe('9000');
    }
  });

  it('keeps the older mark when writing the rows fails, so the next start looks from there', async () => {
    const { store, options } = memoryStore({ [logRunKey('n')]: '5000' }, [reservation(1)]);
    store.insertRows = async () => {
      throw new Error('down');
    };
    await expect(recoverLostLogRows(store, 'n', 9000, row)).rejects.toThrow('down');
    expect(options[logRunKey('n')]).toBe('5000');
    await markLogRunClean(store, 'n');
    expect(options[logRunKey('n')]).toBe('clean');
  });
});
