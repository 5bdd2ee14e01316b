import { mkdirSync } from 'node:fs';
import { SettingError } from '../config/setting-error.js';
import { dirname, resolve } from 'node:path';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database, DatabaseSchema, DialectName } from './database-schema.js';
import { SqliteGroupCommit } from './sqlite-group-commit.js';
import { SqliteReaderDialect } from './sqlite-reader-dialect.js';
import { startWalCheckpointer, type WalCheckpointOptions } from './start-wal-checkpointer.js';

export interface DatabaseHandle {
  db: Database;
  /**
   * For the console's reads of many log rows. On a SQLite file: a read-only connection in a worker thread
   * (sqlite-reader-dialect.ts), so that a sum over a million rows does not hold the event loop; on an
   * in-memory SQLite (which no other connection can open) and on PostgreSQL and MySQL: `db` itself.
   */
  reader: Database;
  dialect: DialectName;
  /** A short description safe to print (no password). */
  description: string;
  /** The embedded database's own connection, for the few hot paths that run synchronous transactions. */
  sqliteConnection?: import('better-sqlite3').Database;
  /** The one group commit of that connection: the ledger's reserves and settles and the log rows share it. */
  sqliteGroupCommit?: SqliteGroupCommit;
  /** Closes the pool or connection, and on SQLite waits for the reader and checkpoint workers to finish. */
  close(): Promise<void>;
}

/** Parses a DATABASE_URL into a dialect; the one place the dialect is chosen. */
export function dialectOf(databaseUrl: string): DialectName {
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) return 'postgres';
  if (databaseUrl.startsWith('mysql://') || databaseUrl.startsWith('mariadb://')) return 'mysql';
  if (databaseUrl.startsWith('sqlite:') || databaseUrl === ':memory:') return 'sqlite';
  throw new SettingError(`DATABASE_URL must start with sqlite:, postgres:// or mysql:// (got "${redact(databaseUrl)}")`);
}

export interface DatabaseOptions {
  /** SQLite file databases: the checkpoint worker's timing, or false to leave checkpoints to SQLite. */
  walCheckpoint?: WalCheckpointOptions | false;
  /**
   * SQLite: the page cache of the serving connection, in MB (default 4). better-sqlite3 builds SQLite with
   * a 16 MB default; the hot path touches only the right edges of a few b-trees and the balance rows, and
   * under load that cache filled to 14 MB of resident memory holding pages written once (session 6).
   */
  cacheMb?: number;
  /**
   * SQLite files: the reader worker's idle time before it closes, or false to run the console's log reads
   * on the serving connection (`reader` is `db`), as before the worker.
   */
  readerWorker?: { idleMs?: number } | false;
}

const defaultSqliteCacheMb = 4;

export async function createDatabase(databaseUrl: string, options: DatabaseOptions = {}): Promise<DatabaseHandle> {
  const dialect = dialectOf(databaseUrl);
  switch (dialect) {
    case 'sqlite': {
      const { db, reader, connection, checkpointerStopped } = await createSqlite(databaseUrl, options);
      const close = async () => {
        // The reader first: its connection is read-only, and the checkpointer's, closed last, removes the WAL file.
        if (reader !== db) await reader.destroy();
        await db.destroy();
        await checkpointerStopped();
      };
      return { db, reader, dialect, description: databaseUrl, sqliteConnection: connection, sqliteGroupCommit: new SqliteGroupCommit(connection), close };
    }
    case 'postgres': {
      const db = await createPostgres(databaseUrl);
      return { db, reader: db, dialect, description: redact(databaseUrl), close: () => db.destroy() };
    }
    case 'mysql': {
      const db = await createMysql(databaseUrl);
      return { db, reader: db, dialect, description: redact(databaseUrl), close: () => db.destroy() };
    }
  }
}

async function createSqlite(databaseUrl: string, options: DatabaseOptions): Promise<{ db: Database; reader: Database; connection: import('better-sqlite3').Database; checkpointerStopped: () => Promise<void> }> {
  const { default: SqliteDatabase } = await import('better-sqlite3');
  const location = databaseUrl === ':memory:' || databaseUrl === 'sqlite::memory:' ? ':memory:' : databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (location !== ':memory:') mkdirSync(dirname(resolve(location)), { recursive: true });
  const connection = new SqliteDatabase(location);
  // WAL lets readers run beside the writer; busy_timeout turns lock contention into a short wait
  // instead of SQLITE_BUSY (new-api #1573).
  connection.pragma('journal_mode = WAL');
  connection.pragma('busy_timeout = 10000');
  connection.pragma('synchronous = NORMAL');
  // Negative: a size in KiB rather than in pages.
  connection.pragma(`cache_size = -${Math.round((options.cacheMb ?? defaultSqliteCacheMb) * 1024)}`);
  // A file database checkpoints its WAL from a worker thread, off the event loop (start-wal-checkpointer.ts).
  const checkpointer = location === ':memory:' || options.walCheckpoint === false ? undefined : startWalCheckpointer(connection, resolve(location), options.walCheckpoint);
  const close = () => {
    // The serving connection first: the worker's connection is then the last, and its close checkpoints
    // and removes the WAL file.
    connection.close();
    void checkpointer?.stop();
  };
  const db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: withStatementCache(connection, close) }) });
  const reader =
    location === ':memory:' || options.readerWorker === false
      ? db
      : new Kysely<DatabaseSchema>({
          dialect: new SqliteReaderDialect({ file: resolve(location), cacheMb: options.cacheMb ?? defaultSqliteCacheMb, idleMs: options.readerWorker?.idleMs, fallback: (query) => db.executeQuery(query) }),
        });
  return {
    db,
    reader,
    connection,
    // Kysely's destroy() does not wait for the worker; DatabaseHandle.close() does (stop() is idempotent).
    checkpointerStopped: async () => checkpointer?.stop(),
  };
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing dominated the profile of the hot path
 * (reserve and settle run the same handful of statements for every request). Statements are reusable,
 * so keep the short ones by SQL text, in a bounded map.
 */
function withStatementCache(connection: import('better-sqlite3').Database, close: () => void) {
  const statements = new Map<string, import('better-sqlite3').Statement>();
  return {
    prepare(sqlText: string) {
      let statement = statements.get(sqlText);
      if (statement === undefined) {
        statement = connection.prepare(sqlText);
        // Batched inserts (log rows) vary in length and are large: caching them would only hold memory.
        if (sqlText.length > 2048) return statement;
        if (statements.size >= 256) statements.clear();
        statements.set(sqlText, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      close();
    },
  };
}

async function createPostgres(databaseUrl: string): Promise<Database> {
  const { default: pg } = await import('pg');
  // int8 and numeric come back as strings by default; our values fit in a double.
  pg.types.setTypeParser(20, (value: string) => Number(value));
  pg.types.setTypeParser(1700, (value: string) => Number(value));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  // An idle client whose backend goes away (restart, failover) emits 'error' on the pool; unhandled, that
  // would crash the process. The next query simply gets a fresh connection.
  pool.on('error', () => undefined);
  // A client checked out (a query running on it) is not covered by that: pg-pool takes its own listener
  // off while the client is out, and pg's Client emits 'error' when its connection ends under a query (a
  // network cut, a terminated backend). The query itself is already rejected with that error; without a
  // listener of the client's own, the same error would also end the process with every stream it serves.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
}

async function createMysql(databaseUrl: string): Promise<Database> {
  const { createPool } = await import('mysql2');
  const url = new URL(databaseUrl.replace(/^mariadb:/, 'mysql:'));
  const pool = createPool({
    host: url.hostname,
    port: url.port === '' ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.replace(/^\//, ''),
    connectionLimit: 20,
    decimalNumbers: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
  });
  // mysql2's pool listens to a connection's first 'error' only (once, to drop it from the pool); a dead
  // connection can emit more (a write after the fatal error: "Can't write in closed state"), and an
  // unheard one would end the process. The command running on it is rejected through its own callback.
  pool.on('connection', (connection) => connection.on('error', () => undefined));
  return new Kysely<DatabaseSchema>({ dialect: new MysqlDialect({ pool }) });
}

function redact(databaseUrl: string): string {
  return databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
