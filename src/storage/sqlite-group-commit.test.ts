import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase, { type Database as SqliteConnection } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteGroupCommit } from './sqlite-group-commit.js';

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
    observer = new SqliteDatabase(file, { readonly: true });
  });
  afterEach(() => {
    observer.close();
    connection.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const insert = (name: string) => () => connection.prepare('insert into items (name) values (?)').run(name).changes;
  const committed = () => (observer.prepare('select name from items order by name').all() as { name: string }[]).map((row) => row.name);

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

  it('rejects queued operations when the connection has been closed', async () => {
    const groupCommit = new SqliteGroupCommit(connection);
    const pending = groupCommit.run(insert('a'));
    connection.close();
    await expect(pending).rejects.toThrow(/not open/);
    connection = new SqliteDatabase(join(directory, 'test.db'));
  });
});
