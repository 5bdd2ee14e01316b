#!/usr/bin/env node
/**
 * Micro-benchmark behind a suggestion in BENCHMARKS.md: the quota ledger's cost per request on SQLite.
 *   A. the gateway's SqlQuotaLedger (dist/, Kysely over better-sqlite3): reserve + settle, as the relay did
 *   S. the gateway's SqliteQuotaLedger (dist/, on the connection createDatabase opened, as main.ts wires it),
 *      when the build has it: one request at a time, then 50 requests at once (each reserve then settle)
 *   B. the same statements with better-sqlite3 directly: prepared once, each transaction synchronous
 *   C. B with group commit: 50 requests' reserves (then settles) in one transaction, one SAVEPOINT each
 * Needs `npm run build`. Usage: node bench/micro/ledger.mjs [cycles=5000]
 * (Imports dist/ internals: if their shape changed, this file needs the same change.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { createDatabase } = await load('storage/create-database.js');
const { runMigrations } = await load('storage/run-migrations.js');
const { SqlQuotaLedger } = await load('billing/sql-quota-ledger.js');
const { SqliteQuotaLedger } = await load('billing/sqlite-quota-ledger.js').catch(() => ({}));

const cycles = Number(process.argv[2] ?? 5000);
const dir = mkdtempSync(join(tmpdir(), 'ledger-micro-'));
const file = join(dir, 'relay.db');
const handle = await createDatabase(`sqlite:${file}`);
await runMigrations(handle.db, handle.dialect);

const raw = new Database(file);
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = NORMAL');
raw.pragma('busy_timeout = 10000');
const now = Date.now();
raw.prepare(`insert into users (username, role, group_name, quota, created_at, updated_at) values ('micro', 'user', 'default', 100000000000000, ?, ?)`).run(now, now);
const userId = raw.prepare(`select id from users where username = 'micro'`).get().id;
raw.prepare(`insert into tokens (user_id, name, key_hash, key_prefix, group_name, remain_quota, created_at, updated_at) values (?, 'micro', 'h', 'sk-', 'default', 10000000000000, ?, ?)`).run(userId, now, now);
const tokenId = raw.prepare(`select id from tokens where name = 'micro'`).get().id;
const channelId = null; // the channel row update is measured by B as a no-op-free path; A gets undefined too

/**
 * CPU of the main thread alone (Linux: /proc/self/task/<pid>/stat, in clock ticks, usually 10 ms), since
 * process.cpuUsage() also counts worker threads (the WAL checkpointer). Undefined elsewhere.
 */
function mainThreadCpuUs() {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return undefined;
  }
}

function time(label, fn) {
  return async () => {
    const cpu = process.cpuUsage();
    const mainBefore = mainThreadCpuUs();
    const started = process.hrtime.bigint();
    await fn();
    const wallUs = Number(process.hrtime.bigint() - started) / 1000 / cycles;
    const used = process.cpuUsage(cpu);
    const cpuUs = (used.user + used.system) / cycles;
    const mainAfter = mainThreadCpuUs();
    const mainUs = mainBefore === undefined || mainAfter === undefined ? '' : ` (main thread ${((mainAfter - mainBefore) / cycles).toFixed(1)})`;
    const memory = process.memoryUsage();
    console.log(`${label.padEnd(58)} ${wallUs.toFixed(1).padStart(7)} µs wall, ${cpuUs.toFixed(1).padStart(7)} µs CPU${mainUs} per reserve + settle; RSS ${(memory.rss / 2 ** 20).toFixed(0)} MB, heap ${(memory.heapUsed / 2 ** 20).toFixed(0)} MB`);
    return cpuUs;
  };
}

// A. The gateway's ledger (Kysely, async, statements compiled and prepared per call).
const ledger = new SqlQuotaLedger(handle.db, handle.dialect, 'micro');
let sequence = 0;
const viaKysely = async (n) => {
  for (let i = 0; i < n; i++) {
    const id = `a-${sequence++}`;
    await ledger.reserve({ id, tokenId, userId, amount: 1229 }, now);
    await ledger.settle(id, { actualAmount: 8, channelId: undefined }, now);
  }
};

// B. Same SQL, prepared once, synchronous transactions.
const insertReservation = raw.prepare(`insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at) values (?, ?, ?, ?, 'micro', 'reserved', null, ?, null)`);
const debitToken = raw.prepare(`update tokens set remain_quota = case when unlimited_quota = 1 then remain_quota else remain_quota - ? end where id = ? and (unlimited_quota = 1 or remain_quota >= ?)`);
const debitUser = raw.prepare(`update users set quota = case when unlimited_quota = 1 then quota else quota - ? end where id = ? and (unlimited_quota = 1 or quota >= ?)`);
const claim = raw.prepare(`update quota_reservations set state = 'settled', settled_at = ? where id = ? and state = 'reserved' returning amount, token_id, user_id`);
const settleToken = raw.prepare(`update tokens set remain_quota = case when unlimited_quota = 1 then remain_quota else remain_quota + ? end, used_quota = used_quota + ?, request_count = request_count + 1 where id = ?`);
const settleUser = raw.prepare(`update users set quota = case when unlimited_quota = 1 then quota else quota + ? end, used_quota = used_quota + ?, request_count = request_count + 1 where id = ?`);
const settledAmount = raw.prepare(`update quota_reservations set settled_amount = ? where id = ?`);
const reserveTx = raw.transaction((id, amount) => {
  insertReservation.run(id, tokenId, userId, amount, now);
  if (debitToken.run(amount, tokenId, amount).changes !== 1) throw new Error('short: token');
  if (debitUser.run(amount, userId, amount).changes !== 1) throw new Error('short: user');
});
const settleTx = raw.transaction((id, actual) => {
  const row = claim.get(now, id);
  if (row === undefined) return 0;
  const charged = Math.min(actual, row.amount);
  settleToken.run(row.amount - charged, charged, row.token_id);
  settleUser.run(row.amount - charged, charged, row.user_id);
  settledAmount.run(charged, id);
  return charged;
});
const viaPrepared = async (n) => {
  for (let i = 0; i < n; i++) {
    const id = `b-${sequence++}`;
    reserveTx.immediate(id, 1229);
    settleTx.immediate(id, 8);
  }
};

// C. B with group commit: the operations of 50 concurrent requests share one transaction (each still in
// its own SAVEPOINT — better-sqlite3 nests transactions that way — so one short balance rolls back alone).
const batch = 50;
const reserveBatch = raw.transaction((ids) => {
  for (const id of ids) reserveTx(id, 1229);
});
const settleBatch = raw.transaction((ids) => {
  for (const id of ids) settleTx(id, 8);
});
const viaGroupCommit = async (n) => {
  for (let i = 0; i < n; i += batch) {
    const ids = Array.from({ length: Math.min(batch, n - i) }, () => `c-${sequence++}`);
    reserveBatch.immediate(ids);
    settleBatch.immediate(ids);
  }
};

// S. The gateway's SQLite ledger (synchronous since 7c6325c, group commit since), on the connection
// createDatabase opened (with whatever pragmas and checkpointing it sets up), as main.ts wires it.
const sqliteLedger = SqliteQuotaLedger === undefined ? undefined : new SqliteQuotaLedger(handle.sqliteConnection ?? raw, 'micro');
const viaSqliteLedger = async (n) => {
  for (let i = 0; i < n; i++) {
    const id = `s-${sequence++}`;
    await sqliteLedger.reserve({ id, tokenId, userId, amount: 1229 }, now);
    await sqliteLedger.settle(id, { actualAmount: 8, channelId: undefined }, now);
  }
};
// S50. 50 requests in flight at once, each its reserve then its settle, as a busy gateway has them.
const viaSqliteLedgerConcurrent = async (n) => {
  for (let i = 0; i < n; i += batch) {
    const ids = Array.from({ length: Math.min(batch, n - i) }, () => `s50-${sequence++}`);
    await Promise.all(
      ids.map(async (id) => {
        await sqliteLedger.reserve({ id, tokenId, userId, amount: 1229 }, now);
        await sqliteLedger.settle(id, { actualAmount: 8, channelId: undefined }, now);
      }),
    );
  }
};

await viaKysely(500); // warm-up
if (sqliteLedger !== undefined) await viaSqliteLedger(500);
if (sqliteLedger !== undefined) await viaSqliteLedgerConcurrent(500);
await viaGroupCommit(500);
await viaPrepared(500);
const a = await time('A. SqlQuotaLedger (Kysely → better-sqlite3), sequential', () => viaKysely(cycles))();
if (sqliteLedger !== undefined) {
  const sl = await time('S. SqliteQuotaLedger (gateway), sequential', () => viaSqliteLedger(cycles))();
  console.log(`S costs ${((sl / a) * 100).toFixed(0)} % of A's CPU`);
  const sc = await time(`S${batch}. SqliteQuotaLedger (gateway), ${batch} requests at once`, () => viaSqliteLedgerConcurrent(cycles))();
  console.log(`S${batch} costs ${((sc / a) * 100).toFixed(0)} % of A's CPU`);
}
const b = await time('B. better-sqlite3, prepared once, sync transactions', () => viaPrepared(cycles))();
const c = await time(`C. B + group commit (${batch} requests per transaction)`, () => viaGroupCommit(cycles))();
console.log(`C costs ${((c / a) * 100).toFixed(0)} % of A's CPU (saves ${(a - c).toFixed(0)} µs per request)`);
console.log(`B costs ${((b / a) * 100).toFixed(0)} % of A's CPU (saves ${(a - b).toFixed(0)} µs per request)`);
void channelId;
raw.close();
await handle.db.destroy();
rmSync(dir, { recursive: true, force: true });
