#!/usr/bin/env node
/**
 * What sharing one SQLite file costs two gateway processes (`relay serve --workers 2`), measured without
 * the HTTP load that a 2-core machine cannot run beside two workers. Each process is pinned to a core of
 * its own and plays a gateway under 50 connections: per request it burns `--cpu-us` of CPU outside the
 * database (HTTP, parsing, the upstream call: the gateway's CPU per request less its ledger), reserves
 * through the gateway's own SqliteQuotaLedger and group commit (dist/), and settles after its answer, as
 * the relay does. Requests/s with 1 process, then with 2, and the ratio; and each process's CPU share:
 * the model never idles, so a share below 100 % is time asleep in SQLite's busy handler (BEGIN IMMEDIATE
 * while the other process holds the write lock).
 *
 * Needs `npm run build`. Usage: node bench/micro/two-writers.mjs [--seconds 8] [--cpu-us 55]
 *   [--in-flight 50] [--rounds 3] [--same-core] (both processes on core 0: what sharing a core costs)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { values: options } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    'cpu-us': { type: 'string', default: '55' },
    'in-flight': { type: 'string', default: '50' },
    child: { type: 'string' },
    file: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    'same-core': { type: 'boolean', default: false },
  },
});
const seconds = Number(options.seconds);
const cpuUs = Number(options['cpu-us']);
const inFlight = Number(options['in-flight']);

function burn(us) {
  const until = process.hrtime.bigint() + BigInt(Math.round(us * 1000));
  while (process.hrtime.bigint() < until);
}

async function openDatabase(file) {
  const { createDatabase } = await load('storage/create-database.js');
  return createDatabase(`sqlite:${file}`);
}

/** One gateway-like process: prints its requests/s and CPU share as JSON. */
async function child(file, name) {
  const { SqliteQuotaLedger } = await load('billing/sqlite-quota-ledger.js');
  // The gateway's own request ids, which grow with time (the reservations' B-tree takes them at its right edge).
  const { generateRequestId } = await load('http/generate-request-id.js');
  const handle = await openDatabase(file);
  const connection = handle.sqliteConnection;
  const { userId, tokenId, channelId } = connection.prepare(`select u.id as userId, t.id as tokenId, c.id as channelId from users u, tokens t, channels c where u.username = 'two-writers' and t.name = 'two-writers' and c.name = 'two-writers'`).get();
  const ledger = new SqliteQuotaLedger(connection, name, handle.sqliteGroupCommit);
  let done = 0;
  let counting = false;
  let stopping = false;
  const half = cpuUs / 2;
  const request = async () => {
    while (!stopping) {
      await new Promise((next) => setImmediate(next));
      burn(half);
      const id = generateRequestId();
      const reserved = await ledger.reserve({ id, tokenId, userId, amount: 1229 }, Date.now());
      if (!reserved.ok) throw new Error(`short ${reserved.short}`);
      await new Promise((next) => setImmediate(next));
      burn(half);
      void ledger.settle(id, { actualAmount: 8, channelId }, Date.now());
      if (counting) done += 1;
    }
  };
  const workers = Array.from({ length: inFlight }, request);
  await new Promise((next) => setTimeout(next, 1000));
  counting = true;
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  await new Promise((next) => setTimeout(next, seconds * 1000));
  counting = false;
  const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  stopping = true;
  await Promise.allSettled(workers);
  await new Promise((next) => setTimeout(next, 20));
  await handle.close();
  const result = {
    requestsPerSecond: done / elapsedS,
    cpuShare: (cpu.user + cpu.system) / 1e6 / elapsedS,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runChild(file, name, core) {
  const args = [fileURLToPath(import.meta.url), '--child', name, '--file', file, '--seconds', String(seconds), '--cpu-us', String(cpuUs), '--in-flight', String(inFlight)];
  const command = core === undefined ? process.execPath : 'taskset';
  const argv = core === undefined ? args : ['-c', String(core), process.execPath, ...args];
  return new Promise((done, fail) => {
    const processHandle = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    processHandle.stdout.on('data', (data) => (out += data));
    processHandle.on('exit', (code) => (code === 0 ? done(JSON.parse(out.trim().split('\n').pop())) : fail(new Error(`${name} exited ${code}`))));
  });
}

async function prepare() {
  const dir = mkdtempSync(join(tmpdir(), 'two-writers-'));
  const file = join(dir, 'relay.db');
  const { runMigrations } = await load('storage/run-migrations.js');
  const handle = await openDatabase(file);
  await runMigrations(handle.db, handle.dialect);
  const connection = handle.sqliteConnection;
  const now = Date.now();
  connection.prepare(`insert into users (username, role, group_name, quota, created_at, updated_at) values ('two-writers', 'user', 'default', 100000000000000, ?, ?)`).run(now, now);
  const userId = connection.prepare(`select id from users where username = 'two-writers'`).get().id;
  connection.prepare(`insert into tokens (user_id, name, key_hash, key_prefix, group_name, remain_quota, created_at, updated_at) values (?, 'two-writers', 'h', 'sk-', 'default', 10000000000000, ?, ?)`).run(userId, now, now);
  connection.prepare(`insert into channels (name, type, base_url, keys_encrypted, models, groups, model_mapping, settings, created_at, updated_at) values ('two-writers', 'openai', 'http://127.0.0.1:1', '', '[]', '[]', '{}', '{}', ?, ?)`).run(now, now);
  await handle.close();
  return { dir, file };
}

if (options.child !== undefined) {
  await child(options.file, options.child);
} else {
  const format = (results) => {
    const total = results.reduce((sum, result) => sum + result.requestsPerSecond, 0);
    const cpu = results.map((result) => `${(result.cpuShare * 100).toFixed(0)} %`).join(' + ');
    return { total, text: `${total.toFixed(0).padStart(7)} req/s, CPU ${cpu}` };
  };
  console.log(`[two-writers] ${seconds} s per run, ${cpuUs} µs of CPU per request outside the ledger, ${inFlight} requests in flight per process`);
  for (let round = 1; round <= Number(options.rounds); round++) {
    const { dir, file } = await prepare();
    try {
      const one = format([await runChild(file, 'one', 0)]);
      const two = format(await Promise.all([runChild(file, 'a', 0), runChild(file, 'b', options['same-core'] ? 0 : 1)]));
      console.log(`round ${round}: 1 process ${one.text}`);
      console.log(`round ${round}: 2 processes ${two.text}; ×${(two.total / one.total).toFixed(2)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
