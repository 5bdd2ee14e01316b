import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

export interface SqliteReaderOptions {
  /** The database file (absolute), the one the serving connection has open in WAL mode. */
  file: string;
  /** The reader connection's page cache, in MB. */
  cacheMb: number;
  /** How long the reader waits for locks (a reader in WAL mode waits only while a checkpoint restarts the WAL). */
  busyTimeoutMs?: number;
  /** How long the worker stays after its last query before it closes (its memory, ~9 MB idle, goes back); default 60 s. */
  idleMs?: number;
  /** Runs a query on the serving connection instead: used only when no worker thread can be created. */
  fallback: (query: CompiledQuery) => Promise<QueryResult<unknown>>;
}

/** What the worker answers a query with: its rows, or the error's parts (an Error does not cross a thread with its `code`). */
type Answer = { id: number; rows: unknown[]; changes?: number } | { id: number; error: { name: string; message: string; code?: string } };

/**
 * CommonJS, run with `eval: true` (as start-wal-checkpointer.ts, for the same reason: one text for the
 * sources and dist/). The driver is required by the path the parent resolved. Messages are answered in the
 * order they came, one at a time.
 */
const workerScript = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const connection = new Database(workerData.file, { readonly: true, fileMustExist: true });
connection.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
connection.pragma('cache_size = -' + workerData.cacheKib);
const statements = new Map();
parentPort.on('message', (message) => {
  if (message === 'close') {
    connection.close();
    parentPort.close();
    return;
  }
  const { id, sql, parameters } = message;
  try {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = connection.prepare(sql);
      if (statements.size >= 64) statements.clear();
      statements.set(sql, statement);
    }
    if (statement.reader) {
      parentPort.postMessage({ id, rows: statement.all(parameters) });
    } else {
      parentPort.postMessage({ id, rows: [], changes: statement.run(parameters).changes });
    }
  } catch (error) {
    parentPort.postMessage({ id, error: { name: String(error && error.name), message: String(error && error.message), code: error && typeof error.code === 'string' ? error.code : undefined } });
  }
});
`;

interface Pending {
  resolve(result: QueryResult<unknown>): void;
  reject(error: unknown): void;
}

/**
 * A read-only connection to the SQLite file in a worker thread, for the console's reads of many log rows:
 * on better-sqlite3 a query runs on the thread that calls it, and an all-time sum over a million rows held
 * the event loop for half a second, every relay request and stream with it. WAL lets this connection read
 * beside the serving one's writes; each query is its own read transaction, so it sees every commit made
 * before it started. Started on the first query (a gateway whose console never reads logs pays nothing),
 * closed after `idleMs` without one; referenced only while a query is out, so it never keeps a process alive.
 */
class SqliteReaderWorker {
  private worker: Worker | undefined;
  /** Every worker not yet exited, with its exit: one closing after idling may still be on its way out when another starts. */
  private readonly running = new Map<Worker, Promise<void>>();
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** Set once a worker could not be created: queries go to the serving connection from then on. */
  private unavailable = false;

  constructor(private readonly options: SqliteReaderOptions) {}

  execute(query: CompiledQuery): Promise<QueryResult<unknown>> {
    if (this.closed) return Promise.reject(new Error('the SQLite reader is closed'));
    const worker = this.unavailable ? undefined : (this.worker ?? this.start());
    if (worker === undefined) return this.options.fallback(query);
    const id = this.nextId++;
    clearTimeout(this.idleTimer);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
  }

  private start(): Worker | undefined {
    let worker: Worker;
    try {
      const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
      worker = new Worker(workerScript, {
        eval: true,
        // No inherited flags: a loader (tsx) would only slow the start.
        execArgv: [],
        workerData: { file: this.options.file, driverPath, cacheKib: Math.round(this.options.cacheMb * 1024), busyTimeoutMs: this.options.busyTimeoutMs ?? 10_000 },
      });
    } catch {
      this.unavailable = true;
      return undefined;
    }
    worker.on('message', (answer: Answer) => this.answer(answer));
    // A worker that fails (its file cannot be opened, it runs out of memory) fails the queries it holds; the next query starts another.
    worker.on('error', (error) => this.failAll(worker, error));
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', (code) => {
        this.failAll(worker, new Error(`the SQLite reader worker exited (code ${code})`));
        this.running.delete(worker);
        resolve();
      });
    });
    this.running.set(worker, exited);
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private answer(answer: Answer): void {
    const pending = this.pending.get(answer.id);
    if (pending === undefined) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) this.idle();
    if ('error' in answer) {
      pending.reject(rebuildError(answer.error));
    } else {
      pending.resolve(answer.changes === undefined ? { rows: answer.rows } : { rows: answer.rows, numAffectedRows: BigInt(answer.changes) });
    }
  }

  /** No query out: the worker no longer keeps the process alive, and closes if none comes within idleMs. */
  private idle(): void {
    const worker = this.worker;
    if (worker === undefined) return;
    worker.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker !== worker || this.pending.size > 0) return;
      // Forgotten first: the next query starts another, while this one closes its connection and exits.
      this.worker = undefined;
      worker.postMessage('close');
    }, this.options.idleMs ?? 60_000);
    this.idleTimer.unref();
  }

  private failAll(worker: Worker, error: unknown): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const query of pending) query.reject(error);
  }

  /** Waits for the queries out, closes the worker's connection and resolves when the thread has exited. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.worker?.postMessage('close');
    // Whoever awaits the close is kept alive until every connection is closed.
    for (const worker of this.running.keys()) worker.ref();
    await Promise.all(this.running.values());
  }
}

/** The error the serving connection would have thrown: better-sqlite3's SqliteError with its code, or an Error of the same name and message. */
function rebuildError(parts: { name: string; message: string; code?: string }): Error {
  if (parts.name === 'SqliteError' && parts.code !== undefined) {
    // Required here, not imported: a PostgreSQL or MySQL gateway never loads the driver.
    const { SqliteError } = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
    return new SqliteError(parts.message, parts.code);
  }
  const error = new Error(parts.message);
  error.name = parts.name;
  return error;
}

class ReaderConnection implements DatabaseConnection {
  constructor(private readonly reader: SqliteReaderWorker) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.reader.execute(query) as Promise<QueryResult<R>>;
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite reader does not stream');
  }
}

class ReaderDriver implements Driver {
  private readonly reader: SqliteReaderWorker;
  private readonly connection: ReaderConnection;

  constructor(options: SqliteReaderOptions) {
    this.reader = new SqliteReaderWorker(options);
    this.connection = new ReaderConnection(this.reader);
  }

  async init(): Promise<void> {}

  // One connection for every caller: the worker answers its messages one at a time, and nothing here runs a transaction.
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }

  async beginTransaction(): Promise<void> {
    throw new Error('the SQLite reader runs no transactions');
  }

  async commitTransaction(): Promise<void> {
    throw new Error('the SQLite reader runs no transactions');
  }

  async rollbackTransaction(): Promise<void> {
    throw new Error('the SQLite reader runs no transactions');
  }

  async releaseConnection(): Promise<void> {}

  destroy(): Promise<void> {
    return this.reader.close();
  }
}

/**
 * A Kysely dialect whose queries are compiled here, on the main thread, and run in a worker thread on a
 * read-only connection of its own (SqliteReaderWorker). For reads only: no transactions, no streaming.
 */
export class SqliteReaderDialect implements Dialect {
  constructor(private readonly options: SqliteReaderOptions) {}

  createDriver(): Driver {
    return new ReaderDriver(this.options);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
