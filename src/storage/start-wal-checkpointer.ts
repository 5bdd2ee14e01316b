import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database as SqliteConnection } from 'better-sqlite3';

export interface WalCheckpointOptions {
  /** How often the worker runs a PASSIVE checkpoint. */
  intervalMs?: number;
  /**
   * The serving connection keeps an automatic checkpoint this many WAL pages apart as a backstop: under
   * writes that never pause, the worker's checkpoints cannot let the WAL start over, and this bounds it.
   */
  backstopPages?: number;
  /** How long the worker's connection waits for locks. */
  busyTimeoutMs?: number;
}

export interface WalCheckpointer {
  /** Stops the worker (it closes its own connection); resolves when it has exited (the worker is unref()ed: a process with nothing else to do exits first). */
  stop(): Promise<void>;
}

const defaults = { intervalMs: 500, backstopPages: 10_000, busyTimeoutMs: 5_000 } satisfies Required<WalCheckpointOptions>;

/**
 * CommonJS, run with `eval: true`: the same text works under vitest/tsx (sources) and from dist/, where a
 * worker file path would differ (.ts versus .js). The driver is required by the path the parent resolved.
 */
const workerScript = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const connection = new Database(workerData.file);
connection.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
connection.pragma('journal_mode = WAL');
// A write that changes nothing but page 1: the first write after a complete checkpoint starts the WAL over.
// Only if no other connection has committed since \`sinceVersion\` (read again under the write lock): then
// the checkpoint before it copied every frame. Otherwise it commits nothing at all.
const startWalOver = connection.transaction((sinceVersion) => {
  if (connection.pragma('data_version', { simple: true }) !== sinceVersion) return false;
  connection.pragma('user_version = ' + connection.pragma('user_version', { simple: true }));
  return true;
});
// Other connections' commits since the last look (data_version ignores this connection's own).
let seenVersion;
let startedOver = false;
// PASSIVE only: it never blocks the serving connection's writes. (A TRUNCATE checkpoint here made the
// serving connection's BEGIN IMMEDIATE fail with SQLITE_BUSY under load, busy_timeout notwithstanding.)
const timer = setInterval(() => {
  const version = connection.pragma('data_version', { simple: true });
  // Nothing written since the WAL started over here: copying this connection's own frame would only make
  // the next request start it over again.
  if (startedOver && version === seenVersion) return;
  seenVersion = version;
  startedOver = false;
  const [state] = connection.pragma('wal_checkpoint(PASSIVE)');
  // Every frame copied: the next write starts the WAL over, and SQLite fsyncs the new WAL header in that
  // commit. Make it this connection's, not a request's on the event loop (~1 ms per checkpoint at low load).
  // Only when nobody committed during the checkpoint: frames written meanwhile keep the WAL from starting
  // over, and this write would only add a frame, discard the serving connection's page cache and hold the
  // write lock its next BEGIN IMMEDIATE then sleeps on (under steady load that was every interval).
  const quiet = connection.pragma('data_version', { simple: true }) === version;
  if (quiet && state !== undefined && state.busy === 0 && state.log > 0 && state.checkpointed === state.log) {
    try {
      startedOver = startWalOver.immediate(version);
    } catch {
      // Busy past busy_timeout: the serving connection is writing, and starts the WAL over itself.
    }
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  connection.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

/**
 * Moves WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit
 * crosses 1000 pages, on the serving connection: strace showed the gateway's main thread fsyncing the WAL
 * there (5–9 ms) every 100–200 requests — the one-connection p99. Here a worker thread with a connection
 * of its own checkpoints (PASSIVE) on a timer, and when a checkpoint has copied every frame, writes once
 * itself (page 1, unchanged) so that the WAL starts over in its commit: the first commit of a new WAL
 * fsyncs the WAL header, and under light load that was the next request's reserve, every 500 ms (only when
 * nobody committed during the checkpoint: otherwise the WAL cannot start over, see the worker). Once the
 * worker is running, the serving connection's automatic checkpoint moves from every 1,000 WAL pages to a
 * backstop every `backstopPages` (10,000, ~40 MB): the worker has copied most pages by then, so the rare
 * backstop checkpoint is short, and the WAL stays bounded even when writes never pause long enough for it
 * to start over. If the worker cannot start or fails later, the automatic checkpoint goes back to its
 * default: a slower p99, never an unbounded WAL.
 * Returns undefined when no worker could be created.
 */
export function startWalCheckpointer(connection: SqliteConnection, file: string, options: WalCheckpointOptions = {}): WalCheckpointer | undefined {
  const settings = { ...defaults, ...options };
  const automatic = connection.pragma('wal_autocheckpoint', { simple: true }) as number;
  let worker: Worker;
  try {
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    // No inherited flags: `--input-type=module` would make the script ESM, a loader (tsx) would only slow the start.
    worker = new Worker(workerScript, { eval: true, execArgv: [], workerData: { file, driverPath, ...settings } });
  } catch {
    return undefined;
  }
  let stopping = false;
  const setAutomatic = (pages: number) => {
    if (connection.open) connection.pragma(`wal_autocheckpoint = ${pages}`);
  };
  worker.on('message', (message) => {
    if (message === 'ready' && !stopping) setAutomatic(settings.backstopPages);
  });
  // Correctness first and nothing noisy: a failing worker only hands checkpoints back to SQLite.
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (!stopping) setAutomatic(automatic);
      resolve();
    });
  });
  // A checkpointer must never keep the process alive. After the listeners: a 'message' listener refs the port.
  worker.unref();
  return {
    stop() {
      if (!stopping) {
        stopping = true;
        // Whoever awaits the stop must be kept alive until the worker has closed its connection.
        worker.ref();
        worker.postMessage('stop');
      }
      return exited;
    },
  };
}
