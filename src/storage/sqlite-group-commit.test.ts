import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase, { type Database as SqliteConnection } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExpectedFailure, SqliteGroupCommit, withNextDelayMs } from './sqlite-group-commit.js';

describe('SqliteGroupCommit', () => {
  let directory: string;
  let connection: SqliteConnection;
  /** A second connection to the same file: it sees only what was committed. */
  let observer: SqliteConnection;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'group-commit-'));
    const file = join(directory, 'test.db');
    connection = new SqliteDatabase(file);
    connection.pragma('journal_mode = WAL');
    connection.exec('create table items (name text primary key)');
    connection.exec("create table counters (name text primary key, value integer not null); insert into counters values ('hits', 0)");
    observer = new SqliteDatabase(file, { readonly: true });
  });
  afterEach(() => {
    observer.close();
    connection.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const insert = (name: string) => () => connection.prepare('insert into items (name) values (?)').run(name).changes;
  const committed = () => (observer.prepare('select name from items order by name').all() as { name: string }[]).map((row) => row.name);
  const committedHits = () => (observer.prepare("select value from counters where name = 'hits'").get() as { value: number }).value;
  /** Counts its runs; each run adds one to the shared counter (an effect that must be committed exactly once). */
  const counted = (name: string, runs: Map<string, number>, after?: () => void) => () => {
    runs.set(name, (runs.get(name) ?? 0) + 1);
    connection.prepare("update counters set value = value + 1 where name = 'hits'").run();
    insert(name)();
    after?.();
    return name;
  };

  it('retries a transaction refused with SQLITE_BUSY instead of failing its operations', async () => {
    // No busy handler: SQLite answers SQLITE_BUSY at once while another connection holds the write lock.
    connection.pragma('busy_timeout = 0');
    const other = new SqliteDatabase(join(directory, 'test.db'));
    other.exec('begin immediate');
    const groupCommit = new SqliteGroupCommit(connection);
    const together = [groupCommit.run(insert('a')), groupCommit.run(insert('b'))];
    const alone = new Promise((resolve) => setImmediate(resolve)).then(() => groupCommit.run(insert('c')));
    setTimeout(() => other.exec('commit'), 60);
    await expect(Promise.all([...together, alone])).resolves.toEqual([1, 1, 1]);
    expect(committed()).toEqual(['a', 'b', 'c']);
    other.close();
  });

  it('runs the operations queued in one event-loop turn in one transaction and settles them after its commit', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    const seenByOthers: string[][] = [];
    const first = groupCommit.run(insert('a'));
    const second = groupCommit.run(() => {
      connection.prepare("insert into items (name) values ('b')").run();
      seenByOthers.push(committed());
      return connection.inTransaction;
    });
    const third = groupCommit.run(insert('c'));
    // Nothing runs before the event loop turns.
    expect(committed()).toEqual([]);
    await expect(Promise.all([first, second, third])).resolves.toEqual([1, true, 1]);
    // 'a' was written before 'b' but not yet committed when 'b' ran: one shared transaction.
    expect(seenByOthers).toEqual([[]]);
    expect(committed()).toEqual(['a', 'b', 'c']);
  });

  it('rolls back and rejects only the operation that throws', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    const results = await Promise.allSettled([
      groupCommit.run(insert('a')),
      groupCommit.run(() => {
        connection.prepare("insert into items (name) values ('b')").run();
        throw new Error('boom after a write');
      }),
      // A constraint error from SQLite itself: the key already taken in this same batch.
      groupCommit.run(insert('a')),
      groupCommit.run(insert('c')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'boom after a write' });
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(committed()).toEqual(['a', 'c']);
    expect(connection.inTransaction).toBe(false);
  });

  it('rejects an ExpectedFailure alone and goes on in the same transaction, running nothing twice', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    const runs = new Map<string, number>();
    const seenByOthers: string[][] = [];
    const results = await Promise.allSettled([
      groupCommit.run(counted('a', runs)),
      groupCommit.run(() => {
        runs.set('declined', (runs.get('declined') ?? 0) + 1);
        // Fails at its first write: SQLite undoes the failing statement by itself, nothing else to undo.
        try {
          connection.prepare("insert into items (name) values ('a')").run();
        } catch {
          throw new ExpectedFailure('taken');
        }
      }),
      groupCommit.run(() => {
        runs.set('undone', (runs.get('undone') ?? 0) + 1);
        connection.prepare("insert into items (name) values ('undone')").run();
        // Undoes its own write before declaring the expected failure.
        connection.prepare("delete from items where name = 'undone'").run();
        throw new ExpectedFailure('changed its mind');
      }),
      groupCommit.run(
        counted('c', runs, () => {
          seenByOthers.push(committed());
        }),
      ),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ExpectedFailure);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ message: 'changed its mind' });
    // One transaction, no replay: 'a' was not yet committed when 'c' ran, and every operation ran once.
    expect(seenByOthers).toEqual([[]]);
    expect(Object.fromEntries(runs)).toEqual({ a: 1, declined: 1, undone: 1, c: 1 });
    expect(committed()).toEqual(['a', 'c']);
    expect(committedHits()).toBe(2);
    expect(connection.inTransaction).toBe(false);
  });

  it('rolls back a batch with an unexpected error and replays it: every other operation takes effect exactly once', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    const runs = new Map<string, number>();
    const failing = (name: string) => () => {
      runs.set(name, (runs.get(name) ?? 0) + 1);
      connection.prepare("update counters set value = value + 1 where name = 'hits'").run();
      insert(name)();
      throw new Error(`${name} fails after two writes`);
    };
    const results = await Promise.allSettled([
      groupCommit.run(counted('a', runs)),
      groupCommit.run(counted('b', runs)),
      groupCommit.run(failing('bad-1')),
      groupCommit.run(counted('c', runs)),
      groupCommit.run(failing('bad-2')),
      groupCommit.run(counted('d', runs)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ message: 'bad-1 fails after two writes' });
    expect((results[4] as PromiseRejectedResult).reason).toMatchObject({ message: 'bad-2 fails after two writes' });
    expect(results.filter((result) => result.status === 'fulfilled').map((result) => result.value)).toEqual(['a', 'b', 'c', 'd']);
    // Each healthy operation's writes are committed once, whatever number of runs the replay took.
    expect(committed()).toEqual(['a', 'b', 'c', 'd']);
    expect(committedHits()).toBe(4);
    // a, b: first try, then replayed before bad-1; c: after bad-1, then replayed before bad-2; d: once.
    expect(Object.fromEntries(runs)).toEqual({ a: 2, b: 2, 'bad-1': 2, c: 2, 'bad-2': 2, d: 1 });
    expect(connection.inTransaction).toBe(false);
  });

  it('does not fail the other operations of the batch when one of them breaks a constraint', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    const runs = new Map<string, number>();
    const results = await Promise.allSettled([
      groupCommit.run(counted('a', runs)),
      // As a batch of log rows whose insert fails: not an ExpectedFailure, so the batch is replayed.
      groupCommit.run(() => {
        connection.prepare("insert into items (name) values ('rows-1')").run();
        return insert('a')();
      }),
      groupCommit.run(counted('b', runs)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(committed()).toEqual(['a', 'b']);
    expect(committedHits()).toBe(2);
  });

  it('rolls back an operation that throws alone in its batch', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    await expect(
      groupCommit.run(() => {
        connection.prepare("insert into items (name) values ('alone')").run();
        throw new Error('boom alone');
      }),
    ).rejects.toThrow('boom alone');
    expect(committed()).toEqual([]);
    expect(connection.inTransaction).toBe(false);
  });

  it('rejects the whole batch when SQLite rolled the transaction back, and runs nothing after', async () => {
    // RAISE(ROLLBACK) undoes the whole transaction, as SQLITE_FULL or an I/O error would.
    connection.exec("create trigger lose_transaction before insert on items when new.name = 'lost' begin select raise(rollback, 'transaction lost'); end");
    const groupCommit = new SqliteGroupCommit(connection);
    let ranAfter = false;
    const results = await Promise.allSettled([
      groupCommit.run(insert('a')),
      groupCommit.run(insert('lost')),
      groupCommit.run(() => {
        ranAfter = true;
        return insert('c')();
      }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(ranAfter).toBe(false);
    expect(committed()).toEqual([]);
    expect(connection.inTransaction).toBe(false);
    // The next batch works as usual.
    await expect(groupCommit.run(insert('d'))).resolves.toBe(1);
    expect(committed()).toEqual(['d']);
  });

  it('commits at most maxBatch operations per transaction; the rest go to the next one', async () => {
    const groupCommit = new SqliteGroupCommit(connection, 2);
    const seenByOthers: string[][] = [];
    const operation = (name: string) => () => {
      seenByOthers.push(committed());
      return insert(name)();
    };
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((name) => groupCommit.run(operation(name))));
    expect(seenByOthers).toEqual([[], [], ['a', 'b'], ['a', 'b'], ['a', 'b', 'c', 'd']]);
    expect(committed()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('waits while the connection is inside another transaction instead of joining it', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    connection.exec('begin');
    connection.prepare("insert into items (name) values ('other')").run();
    let settled = false;
    const pending = groupCommit.run(insert('a')).then((changes) => {
      settled = true;
      return changes;
    });
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    // The other transaction rolls back; had the operation joined it, its row would go too.
    connection.exec('rollback');
    await expect(pending).resolves.toBe(1);
    expect(committed()).toEqual(['a']);
  });

  describe('runWithNext', () => {
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

    it('starts no transaction at the end of its turn, and joins the one the next run starts', async () => {
      const groupCommit = new SqliteGroupCommit(connection);
      let transactions = 0;
      groupCommit.addDeferredWrites({ write: () => (transactions += 1), discard: () => undefined });
      const settled: string[] = [];
      // Its own transaction would start only from the timer: held still here, however slow the turns.
      vi.useFakeTimers({ toFake: ['setTimeout'] });
      const lazy = groupCommit.runWithNext(insert('a')).then(() => settled.push('a'));
      await nextTurn();
      await nextTurn();
      vi.useRealTimers();
      expect(committed()).toEqual([]);
      expect(settled).toEqual([]);
      const urgent = groupCommit.run(insert('b')).then(() => settled.push('b'));
      await Promise.all([lazy, urgent]);
      expect(transactions).toBe(1);
      expect(committed()).toEqual(['a', 'b']);
      expect(settled).toEqual(['a', 'b']);
    });

    it('commits on its own after withNextDelayMs when nothing else starts a transaction, every time', async () => {
      const groupCommit = new SqliteGroupCommit(connection);
      let transactions = 0;
      groupCommit.addDeferredWrites({ write: () => (transactions += 1), discard: () => undefined });
      // Fake setTimeout: node starts a timer from the loop's cached time, so on real timers a 1 ms delay
      // can end less than 1 ms after the call, and a slow turn can let it end before the next one.
      vi.useFakeTimers({ toFake: ['setTimeout'] });
      try {
        const both = Promise.all([groupCommit.runWithNext(insert('a')), groupCommit.runWithNext(insert('b'))]);
        await nextTurn();
        await nextTurn();
        expect(transactions).toBe(0);
        vi.advanceTimersByTime(withNextDelayMs);
        await both;
        expect(transactions).toBe(1);
        // The timer fired once; a later operation must arm it again.
        const third = groupCommit.runWithNext(insert('c'));
        await nextTurn();
        expect(transactions).toBe(1);
        vi.advanceTimersByTime(withNextDelayMs);
        await third;
        expect(transactions).toBe(2);
        expect(committed()).toEqual(['a', 'b', 'c']);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  it('rejects queued operations when the connection has been closed', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    const pending = groupCommit.run(insert('a'));
    connection.close();
    await expect(pending).rejects.toThrow(/not open/);
    connection = new SqliteDatabase(join(directory, 'test.db'));
  });
});
