import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { runScriptToExit } from '../../test/support/run-script-to-exit.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logRow } from '../../test/support/log-row.js';
import { createDatabase, type DatabaseHandle } from './create-database.js';
import type { Database } from './database-schema.js';
import { LogsRepository } from './logs-repository.js';
import { runMigrations } from './run-migrations.js';

const sourceDirectory = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = resolve(sourceDirectory, '../..');

/** `count` log rows in one INSERT … SELECT over a recursive CTE: user 1 has every other row, one a second from `base`. */
async function fillLogs(handle: DatabaseHandle, count: number, base: number): Promise<void> {
  await sql
    .raw(
      `insert into logs (request_id, created_at, user_id, token_id, token_name, channel_id, model, upstream_model, style, path, is_stream, status,
         input_tokens, output_tokens, quota, latency_ms, attempts, warnings, usage_source, ip)
       with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
       select printf('req-%08d', i), ${base} + i * 1000, 1 + i % 2, 1, 'token', 1, case i % 3 when 0 then 'gpt-4o' when 1 then 'o3' else 'gpt-4o-mini' end,
         'gpt-4o', 'openai', '/v1/chat/completions', 0, 200, 10 + i % 300, i % 500, 100 + i % 900, i % 4000, '[]', '[]', 'upstream', '127.0.0.1'
       from n`,
    )
    .execute(handle.db);
}

/** Runs `work` while a 2 ms timer ticks, and returns how long it took and the longest gap between ticks (the event loop's longest block). */
async function measureBlocking<T>(work: () => Promise<T>): Promise<{ result: T; durationMs: number; longestBlockMs: number }> {
  let last = performance.now();
  let longestBlockMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestBlockMs = Math.max(longestBlockMs, now - last);
    last = now;
  }, 2);
  const started = performance.now();
  try {
    const result = await work();
    const durationMs = performance.now() - started;
    // The gap that ends when the work ends (a block up to its last moment) counts too.
    longestBlockMs = Math.max(longestBlockMs, performance.now() - last);
    return { result, durationMs, longestBlockMs };
  } finally {
    clearInterval(timer);
  }
}

describe('the SQLite reader worker (console log reads off the event loop)', () => {
  let directory: string;
  let file: string;
  let handle: DatabaseHandle | undefined;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'sqlite-reader-'));
    file = join(directory, 'relay.db');
  });
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  it("runs a user's stat over a few hundred thousand rows without blocking the event loop, with the serving connection's answer", async () => {
    handle = await createDatabase(`sqlite:${file}`);
    await runMigrations(handle.db, handle.dialect);
    const base = Date.UTC(2026, 0, 1);
    await fillLogs(handle, 400_000, base);
    const logs = new LogsRepository(handle.db, handle.reader);
    const now = base + 400_001 * 1000;
    // The worker starts on the first read: a small user's stat starts it, outside the measurement.
    await logs.statForUser(3, {}, now);

    // Filtered by status, which no index of the user's rows holds (026's covering index answers the
    // unfiltered all-time stat from the index alone, too fast to measure a block): every row is read.
    const filter = { status: 200 };
    const { result, durationMs, longestBlockMs } = await measureBlocking(() => logs.statForUser(1, filter, now));
    // The same numbers as on the serving connection (which blocks: measured here for the comparison).
    const onServing = await measureBlocking(() => new LogsRepository(handle!.db).statForUser(1, filter, now));
    expect(result).toEqual(onServing.result);
    expect(result.quota).toBeGreaterThan(0);
    // The query is long enough to matter (the serving connection held the loop for all of it)...
    expect(onServing.longestBlockMs).toBeGreaterThan(40);
    // ...and through the worker the loop kept turning: its longest block is a small part of the query's time.
    expect(longestBlockMs, `stat took ${durationMs.toFixed(0)} ms, the loop's longest block ${longestBlockMs.toFixed(1)} ms`).toBeLessThan(durationMs / 4);
  }, 60_000);

  it('gives the same lists and totals as the serving connection, and sees a row the moment it is committed', async () => {
    handle = await createDatabase(`sqlite:${file}`);
    await runMigrations(handle.db, handle.dialect);
    expect(handle.reader).not.toBe(handle.db);
    const viaReader = new LogsRepository(handle.db, handle.reader);
    const viaServing = new LogsRepository(handle.db);
    await viaServing.insertMany([
      logRow({ request_id: 'a', created_at: Date.UTC(2026, 0, 1, 10), quota: 100, model: 'gpt-4o' }),
      logRow({ request_id: 'b', created_at: Date.UTC(2026, 0, 2, 10), quota: 250, model: 'o3', warnings: '["dropped"]' }),
      logRow({ request_id: 'c', created_at: Date.UTC(2026, 0, 2, 11), user_id: 2, quota: 40 }),
    ]);
    const page = { page: 1, pageSize: 10 };
    const now = Date.UTC(2026, 0, 3);
    expect(await viaReader.list({}, page)).toEqual(await viaServing.list({}, page));
    expect(await viaReader.listForUser(1, { model: 'o3' }, page)).toEqual(await viaServing.listForUser(1, { model: 'o3' }, page));
    expect(await viaReader.statForUser(1, {}, now)).toEqual(await viaServing.statForUser(1, {}, now));
    expect(await viaReader.aggregateByModelAndDay({})).toEqual(await viaServing.aggregateByModelAndDay({}));
    expect((await viaReader.list({}, page)).total).toBe(3);

    await viaServing.insertMany([logRow({ request_id: 'd', created_at: Date.UTC(2026, 0, 2, 12), quota: 7 })]);
    expect((await viaReader.statForUser(1, {}, now)).quota).toBe(357);
  });

  it("throws the serving connection's error: a SqliteError with its code and message", async () => {
    handle = await createDatabase(`sqlite:${file}`);
    await runMigrations(handle.db, handle.dialect);
    const failure = (db: Database) => sql`select * from no_such_table`.execute(db).then(() => undefined, (error: unknown) => error);
    const fromReader = await failure(handle.reader);
    const fromServing = await failure(handle.db);
    expect(fromReader).toBeInstanceOf(SqliteDatabase.SqliteError);
    expect(fromServing).toBeInstanceOf(SqliteDatabase.SqliteError);
    expect({ code: (fromReader as { code: string }).code, message: (fromReader as Error).message }).toEqual({
      code: (fromServing as { code: string }).code,
      message: (fromServing as Error).message,
    });
    // Read-only: a write through the reader is refused, and the worker goes on answering.
    const write = await sql`delete from logs`.execute(handle.reader).then(() => undefined, (error: unknown) => error);
    expect((write as { code?: string }).code).toBe('SQLITE_READONLY');
    expect((await sql<{ one: number }>`select 1 as one`.execute(handle.reader)).rows).toEqual([{ one: 1 }]);
  });

  it('closes with the database: the reader connection is gone and the WAL file removed', async () => {
    handle = await createDatabase(`sqlite:${file}`);
    await runMigrations(handle.db, handle.dialect);
    await sql`select count(*) from logs`.execute(handle.reader);
    await handle.close();
    handle = undefined;
    // The last connection to close removes the WAL; a reader still open would have kept it.
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('closes the worker after idleMs without a query, and starts another on the next', async () => {
    // The process's thread count (Linux): the worker is one thread.
    const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
    const eventually = async (what: string, condition: () => boolean) => {
      const deadline = Date.now() + 15_000;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (threads: ${threads()})`);
        await sleep(10);
      }
    };
    handle = await createDatabase(`sqlite:${file}`, { readerWorker: { idleMs: 200 } });
    await runMigrations(handle.db, handle.dialect);
    await sleep(300);
    const withoutReader = threads();
    expect((await sql<{ n: number }>`select count(*) as n from logs`.execute(handle.reader)).rows).toEqual([{ n: 0 }]);
    expect(threads()).toBe(withoutReader + 1);
    await eventually('the idle worker to exit', () => threads() === withoutReader);
    // A read after it starts a worker again, which sees what was written meanwhile.
    await new LogsRepository(handle.db).insertMany([logRow()]);
    expect((await sql<{ n: number }>`select count(*) as n from logs`.execute(handle.reader)).rows).toEqual([{ n: 1 }]);
    expect(threads()).toBe(withoutReader + 1);
  });

  it('keeps the serving connection for an in-memory database, which no other connection can open', async () => {
    handle = await createDatabase('sqlite::memory:');
    expect(handle.reader).toBe(handle.db);
  });

  for (const closes of [true, false]) {
    it(`does not keep a process alive once it has read (${closes ? 'closing its database' : 'never closing it'})`, async () => {
      const script = join(directory, 'read-and-leave.mts');
      writeFileSync(
        script,
        [
          // The script lives outside the repository: kysely by its path.
          `import { sql } from ${JSON.stringify(pathToFileURL(join(repositoryRoot, 'node_modules/kysely/dist/esm/index.js')).href)};`,
          `import { createDatabase } from ${JSON.stringify(pathToFileURL(join(sourceDirectory, 'create-database.ts')).href)};`,
          `const handle = await createDatabase(${JSON.stringify(`sqlite:${file}`)});`,
          `const { rows } = await sql\`select 41 + 1 as answer\`.execute(handle.reader);`,
          `console.log('read ' + rows[0].answer);`,
          closes ? `await handle.close();` : '',
        ].join('\n'),
      );
      const { outcome, output } = await runScriptToExit(script, repositoryRoot);
      expect(outcome, output).toBe(0);
      expect(output).toContain('read 42');
    }, 30_000);
  }
});
