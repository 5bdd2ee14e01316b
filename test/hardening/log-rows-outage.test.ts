/**
 * The log writer as main.ts wires it for PostgreSQL and MySQL (the logs repository as sink, slices of 100
 * rows) against a real server reached through a TCP proxy of this test (test/support/database-proxy.ts),
 * cut for a moment: every row ends up in the logs table exactly once — a slice written before the cut is
 * not written again, and rows that failed twice (or arrived during the cut) are kept until the server is
 * back. SQLite has no connection to lose: the writer's unit test covers the rest with a scripted sink.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogWriter, type LogRowSink } from '../../src/logging/log-writer.js';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { LogsRepository, type LogRow } from '../../src/storage/logs-repository.js';
import { runMigrations } from '../../src/storage/run-migrations.js';
import { startDatabaseProxyFor, type DatabaseProxy } from '../support/database-proxy.js';
import { logRow } from '../support/log-row.js';
import { createTestDatabase, serverDialects, type TestDatabase } from '../support/test-databases.js';

for (const { dialect, available } of serverDialects) {
  describe.skipIf(!available)(`log rows while the database is unreachable for a moment, on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let proxy: DatabaseProxy | undefined;
    let viaProxy: DatabaseHandle | undefined;
    let inspector: DatabaseHandle | undefined;

    afterEach(async () => {
      proxy?.restore();
      await viaProxy?.close();
      await inspector?.close();
      await proxy?.close();
      await database?.drop();
    }, 30_000);

    it('writes every row exactly once: the slice taken before the cut is not written again, the rest waits for the server', async () => {
      database = await createTestDatabase(dialect);
      inspector = await createDatabase(database.url);
      await runMigrations(inspector.db, inspector.dialect);
      proxy = await startDatabaseProxyFor(database.url);
      viaProxy = await createDatabase(proxy.urlFor(database.url));
      const repository = new LogsRepository(viaProxy.db);
      // The cut comes right after the server took the first slice of 100.
      let slices = 0;
      const sink: LogRowSink = {
        async insertMany(rows: LogRow[]) {
          await repository.insertMany(rows);
          if ((slices += 1) === 1) proxy!.blackout();
        },
        insertManyOnce: () => Promise.reject(new Error('no row here is old')),
      };
      const errors: unknown[] = [];
      const dropped: number[] = [];
      // The rows' clock: they were made just now.
      const writer = createLogWriter(sink, { flushIntervalMs: 60_000, maxBatch: 100, now: () => logRow().created_at, onError: (error) => errors.push(error), onDropped: (rows) => dropped.push(rows) });
      const ids = Array.from({ length: 160 }, (_, index) => `outage-${index}`);
      for (const id of ids.slice(0, 150)) writer.write(logRow({ request_id: id }));
      await writer.flush();
      expect(errors.length).toBeGreaterThan(0);
      // Still down: the rows that came since join those waiting, and fail with them once more.
      for (const id of ids.slice(150)) writer.write(logRow({ request_id: id }));
      await writer.flush();
      proxy.restore();
      await writer.flush();
      await writer.close();
      const written = await inspector.db.selectFrom('logs').select('request_id').execute();
      expect(written.map((row) => row.request_id).toSorted()).toEqual(ids.toSorted());
      expect(dropped).toEqual([]);
    }, 30_000);
  });
}
