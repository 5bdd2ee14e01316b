import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { runScriptToExit } from '../../test/support/run-script-to-exit.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from './create-database.js';
import { startWalCheckpointer } from './start-wal-checkpointer.js';

/** Polls until `condition` holds; worker threads start slowly on a busy machine. */
async function eventually(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const sourceDirectory = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = resolve(sourceDirectory, '../..');

const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : -1);

describe('the WAL checkpoint worker', () => {
  let directory: string;
  let file: string;
  let handle: DatabaseHandle | undefined;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'wal-checkpointer-'));
    file = join(directory, 'relay.db');
  });
  afterEach(async () => {
    await handle?.db.destroy();
    handle = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  const automaticCheckpointPages = () => handle!.sqliteConnection!.pragma('wal_autocheckpoint', { simple: true });
  /** Roughly `megabytes` of new pages in one transaction on the serving connection. */
  const write = (megabytes: number) => {
    const connection = handle!.sqliteConnection!;
    const insert = connection.prepare('insert into filler (payload) values (randomblob(1000))');
    connection.transaction(() => {
      for (let row = 0; row < megabytes * 1000; row += 1) insert.run();
    })();
  };

  /** The database with its worker running (every 20 ms), a `filler` table and an insert of one small row. */
  const startWithSmallRows = async () => {
    handle = await createDatabase(`sqlite:${file}`, { walCheckpoint: { intervalMs: 20 } });
    await sql`select 1`.execute(handle.db);
    await eventually('the serving connection to hand checkpoints to the worker', () => automaticCheckpointPages() === 10_000);
    const connection = handle.sqliteConnection!;
    connection.exec('create table filler (id integer primary key, payload blob)');
    return { connection, insert: connection.prepare('insert into filler (payload) values (randomblob(100))') };
  };

  it('takes checkpoints over from the serving connection and keeps the WAL bounded', async () => {
    handle = await createDatabase(`sqlite:${file}`, { walCheckpoint: { intervalMs: 20 } });
    await sql`select 1`.execute(handle.db);
    await eventually('the serving connection to hand checkpoints to the worker', () => automaticCheckpointPages() === 10_000);
    handle.sqliteConnection!.exec('create table filler (id integer primary key, payload blob)');
    let largestWal = 0;
    for (let round = 0; round < 12; round += 1) {
      write(1);
      largestWal = Math.max(largestWal, sizeOf(`${file}-wal`));
      const checkpointedBefore = sizeOf(file);
      // The serving connection no longer checkpoints: only the worker can move pages into the database file.
      await eventually('a checkpoint by the worker', () => sizeOf(file) > checkpointedBefore);
      // The database file grows as a checkpoint starts; let it finish before the next write.
      await sleep(60);
    }
    expect(sizeOf(file)).toBeGreaterThan(12_000_000);
    // 12 MB were written, all of it into the WAL first; checkpoints let later transactions reuse it from its start.
    expect(largestWal).toBeLessThan(8_000_000);
  });

  it('starts the WAL over on its own connection after a complete checkpoint, so no request commit pays the header fsync', async () => {
    const { connection, insert } = await startWithSmallRows();
    // The WAL header's checkpoint sequence number and salts (bytes 12–24) change exactly when the WAL starts over.
    const walGeneration = () => readFileSync(`${file}-wal`).subarray(12, 24).toString('hex');
    insert.run();
    const afterWrite = walGeneration();
    // Nothing is written on the serving connection meanwhile: only the worker can start the WAL over.
    await eventually('the worker to start the WAL over', () => walGeneration() !== afterWrite);
    const startedOver = walGeneration();
    // The serving connection's next commits append to that WAL instead of starting it over themselves.
    insert.run();
    insert.run();
    expect(walGeneration()).toBe(startedOver);
    // And with nothing written, the worker does not keep starting it over (no write, no fsync, every interval).
    await eventually('the worker to take the new frames', () => walGeneration() !== startedOver);
    const idle = walGeneration();
    await sleep(300);
    expect(walGeneration()).toBe(idle);
    expect((connection.prepare('select count(*) as count from filler').get() as { count: number }).count).toBe(3);
  });

  it('writes only to start the WAL over, never a frame into a WAL the serving connection keeps writing', async () => {
    const { connection, insert } = await startWithSmallRows();
    const wal = openSync(`${file}-wal`, 'r');
    const header = Buffer.alloc(24);
    // The checkpoint sequence number and salts: they change exactly when the WAL starts over.
    const walGeneration = () => (readSync(wal, header, 0, 24, 0), header.subarray(12, 24).toString('hex'));
    // data_version changes when another connection committed: here only the worker can.
    const version = () => connection.pragma('data_version', { simple: true });
    let lastVersion = version();
    let lastGeneration = walGeneration();
    // The worker writes the new WAL header before its commit shows in data_version, and the two are read
    // one after the other: a start-over can show as a new generation one loop before its new version. So a
    // worker write is an append only if the generation did not move at all since the previous one.
    let generationMoved = false;
    let workerWrites = 0;
    let appendedByWorker = 0;
    // Commits back to back for 40 of the worker's intervals; it runs on its own thread meanwhile (its
    // checkpoints overlap these commits, except in the pauses a collection makes).
    const until = Date.now() + 800;
    try {
      while (Date.now() < until) {
        insert.run();
        const nowVersion = version();
        const nowGeneration = walGeneration();
        if (nowGeneration !== lastGeneration) {
          generationMoved = true;
          lastGeneration = nowGeneration;
        }
        if (nowVersion !== lastVersion) {
          workerWrites += 1;
          if (!generationMoved) appendedByWorker += 1;
          generationMoved = false;
          lastVersion = nowVersion;
        }
      }
    } finally {
      closeSync(wal);
    }
    // Before: a write after every complete checkpoint, most of them a frame appended to a WAL in use, each
    // discarding the serving connection's page cache and holding the write lock its BEGIN then slept on.
    // A few are allowed: on a loaded machine two start-overs can fall in one loop (the second's header read
    // with the first's commit), and the second's commit then shows with no generation move of its own (a
    // full test run saw 2 of 5). Before, nearly every write was an appended frame.
    expect(appendedByWorker, `${workerWrites} writes by the worker`).toBeLessThanOrEqual(Math.max(1, Math.floor(workerWrites / 2)));
  });

  it('keeps a backstop: past backstopPages of WAL the serving connection checkpoints itself', async () => {
    // The worker's own checkpoints never come (an hour apart): only the backstop can move pages.
    handle = await createDatabase(`sqlite:${file}`, { walCheckpoint: { intervalMs: 3_600_000, backstopPages: 200 } });
    await sql`select 1`.execute(handle.db);
    await eventually('the serving connection to take the backstop', () => automaticCheckpointPages() === 200);
    handle.sqliteConnection!.exec('create table filler (id integer primary key, payload blob)');
    const before = sizeOf(file);
    write(3);
    // The automatic checkpoint runs inside the commit that crossed 200 pages: synchronously, before write() returns.
    expect(sizeOf(file) - before).toBeGreaterThan(3_000_000);
    const rows = handle.sqliteConnection!.prepare('select count(*) as count from filler').get() as { count: number };
    expect(rows.count).toBe(3000);
  });

  it('stops with the database: the worker closes its connection, the last one, which removes the WAL', async () => {
    handle = await createDatabase(`sqlite:${file}`, { walCheckpoint: { intervalMs: 20 } });
    await sql`select 1`.execute(handle.db);
    await eventually('the serving connection to hand checkpoints to the worker', () => automaticCheckpointPages() === 10_000);
    handle.sqliteConnection!.exec('create table filler (id integer primary key, payload blob)');
    write(1);
    await handle.db.destroy();
    handle = undefined;
    // A worker still running would hold its connection, and with it the WAL file, open.
    await eventually('the WAL file to be removed', () => !existsSync(`${file}-wal`));
    const reopened = new SqliteDatabase(file, { readonly: true });
    expect((reopened.prepare('select count(*) as count from filler').get() as { count: number }).count).toBe(1000);
    reopened.close();
  });

  it('does not keep the process alive: a process that never closes its database still exits', async () => {
    const script = join(directory, 'open-and-leave.mts');
    writeFileSync(
      script,
      [
        `import { createDatabase } from ${JSON.stringify(pathToFileURL(join(sourceDirectory, 'create-database.ts')).href)};`,
        `const handle = await createDatabase(${JSON.stringify(`sqlite:${file}`)}, { walCheckpoint: { intervalMs: 20 } });`,
        `while (handle.sqliteConnection!.pragma('wal_autocheckpoint', { simple: true }) !== 10_000) await new Promise((resolve) => setTimeout(resolve, 10));`,
        `console.log('checkpointer running');`,
      ].join('\n'),
    );
    const { outcome, output } = await runScriptToExit(script, repositoryRoot);
    expect(outcome, output).toBe(0);
    expect(output).toContain('checkpointer running');
  });

  it('leaves an in-memory database alone', async () => {
    handle = await createDatabase('sqlite::memory:', { walCheckpoint: { intervalMs: 20 } });
    await sql`select 1`.execute(handle.db);
    await sleep(300);
    expect(automaticCheckpointPages()).toBe(1000);
    expect(handle.sqliteConnection!.pragma('journal_mode', { simple: true })).toBe('memory');
  });

  it('leaves checkpoints to SQLite when the worker cannot open the database', async () => {
    const connection = new SqliteDatabase(file);
    connection.pragma('journal_mode = WAL');
    // A directory where the database should be: the worker fails to open it and exits.
    const checkpointer = startWalCheckpointer(connection, directory, { intervalMs: 20 });
    expect(checkpointer).toBeDefined();
    await checkpointer!.stop();
    expect(connection.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    connection.close();
  });

  it('resolves stop() once the worker has exited', async () => {
    const connection = new SqliteDatabase(file);
    connection.pragma('journal_mode = WAL');
    const checkpointer = startWalCheckpointer(connection, file, { intervalMs: 20 })!;
    await eventually('the serving connection to hand checkpoints to the worker', () => connection.pragma('wal_autocheckpoint', { simple: true }) === 10_000);
    connection.close();
    await checkpointer.stop();
    // Its connection is closed: the file can be opened exclusively.
    const exclusive = new SqliteDatabase(file);
    exclusive.pragma('locking_mode = EXCLUSIVE');
    exclusive.exec('begin exclusive; commit');
    exclusive.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});
