#!/usr/bin/env node
/**
 * Micro-benchmark behind BENCHMARKS.md session 13: what one request log row costs on SQLite. The
 * gateway's own sink (`sqliteLogRowSink`, dist/) inserts batches of 50 rows through its group commit (one
 * transaction each), on the schema the migrations build. It measures µs of CPU per row with every index on
 * `logs`, then again after dropping the secondary indexes one by one, so each index's share can be read off.
 * Needs `npm run build`. Usage: node bench/micro/log-rows.mjs [batchesPerRound=400]
 * With a server database (`node bench/micro/log-rows.mjs 200 postgres://…/relay_bench`, or mysql://…) it
 * writes the same batches as the gateway does there (`LogsRepository.insertMany`, one multi-row INSERT) into
 * the `logs` table as it stands (log-queries.mjs's 2 M rows), users spread as that bench's rows are, and
 * prints µs of wall time and of the database server's CPU per row (all its processes, read from /proc: the
 * server runs on this host); it drops no index — add or drop one by hand between runs to price it.
 * (Imports dist/ internals: if their shape changed, this file needs the same change.)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { createDatabase } = await load('storage/create-database.js');
const { runMigrations } = await load('storage/run-migrations.js');
const { sqliteLogRowSink } = await load('logging/sqlite-log-rows.js');

const batchesPerRound = Number(process.argv[2] ?? 400);
const serverUrl = process.argv[3];
const batchSize = 50;
if (serverUrl !== undefined) await measureServer(serverUrl);
const dir = mkdtempSync(join(tmpdir(), 'log-rows-micro-'));
const handle = await createDatabase(`sqlite:${join(dir, 'relay.db')}`, { cacheMb: 4 });
await runMigrations(handle.db, handle.dialect);
const connection = handle.sqliteConnection;
const sink = sqliteLogRowSink(connection, handle.sqliteGroupCommit);

let sequence = 0;
/** A chat request's row as the relay writes it; ids time-ordered as the gateway's request ids are. */
function row(createdAt = 1_795_750_000_000 + ++sequence, userId = 1, tokenId = 1) {
  return {
    request_id: `${createdAt.toString(16).padStart(16, '0')}ab12cd34ef567890`,
    created_at: createdAt,
    user_id: userId,
    token_id: tokenId,
    token_name: 'bench',
    channel_id: 1,
    model: 'gpt-4o-mini',
    upstream_model: 'gpt-4o-mini',
    style: 'openai',
    path: '/v1/chat/completions',
    is_stream: 0,
    status: 200,
    input_tokens: 14,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    audio_input_tokens: 0,
    audio_output_tokens: 0,
    image_input_tokens: 0,
    image_output_tokens: 0,
    web_search_calls: 0,
    output_tokens: 12,
    reasoning_tokens: 0,
    quota: 1234,
    latency_ms: 3,
    first_token_ms: null,
    attempts: '[{"channel_id":1,"status":200}]',
    warnings: '[]',
    usage_source: 'upstream',
    ip: '127.0.0.1',
    error: null,
  };
}

async function insertBatches(count) {
  for (let index = 0; index < count; index += 1) await sink.insertMany(Array.from({ length: batchSize }, row));
}

async function measure(label) {
  await insertBatches(Math.ceil(batchesPerRound / 2));
  const perRow = [];
  for (let round = 0; round < 5; round += 1) {
    const started = process.cpuUsage();
    await insertBatches(batchesPerRound);
    const used = process.cpuUsage(started);
    perRow.push((used.user + used.system) / (batchesPerRound * batchSize));
  }
  perRow.sort((a, b) => a - b);
  console.log(`${label}: ${perRow[2].toFixed(2)} µs of CPU per row (rounds ${perRow.map((value) => value.toFixed(1)).join(', ')})`);
}

/** The database server's CPU so far, in µs: every process of that name on this host (Linux's /proc, clock ticks of 10 ms). */
function serverCpuMicros(dialect) {
  const names = dialect === 'postgres' ? ['postgres'] : ['mariadbd', 'mysqld'];
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!names.includes(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended while being read
    }
  }
  return ticks * 10_000;
}

async function measureServer(url) {
  const { LogsRepository } = await load('storage/logs-repository.js');
  const server = await createDatabase(url, { walCheckpoint: false });
  const logs = new LogsRepository(server.db);
  const { latest } = await server.db.selectFrom('logs').select((eb) => eb.fn.max('created_at').as('latest')).executeTakeFirstOrThrow();
  let at = Number(latest ?? 1_790_000_000_000);
  // As log-queries.mjs's rows: every other row user 1's (its tokens 1–4), the rest spread over 999 users.
  const nextRow = () => {
    at += 1;
    const userId = at % 2 === 0 ? 1 : 2 + (at % 999);
    return row(at, userId, userId === 1 ? 1 + (at % 4) : 1000 + (at % 999));
  };
  const insertServerBatches = async (count) => {
    for (let index = 0; index < count; index += 1) await logs.insertMany(Array.from({ length: batchSize }, nextRow));
  };
  await insertServerBatches(Math.ceil(batchesPerRound / 2));
  const wall = [];
  const cpu = [];
  for (let round = 0; round < 5; round += 1) {
    const cpuBefore = serverCpuMicros(server.dialect);
    const started = process.hrtime.bigint();
    await insertServerBatches(batchesPerRound);
    wall.push(Number(process.hrtime.bigint() - started) / 1e3 / (batchesPerRound * batchSize));
    cpu.push((serverCpuMicros(server.dialect) - cpuBefore) / (batchesPerRound * batchSize));
  }
  await server.close();
  const median = (values) => [...values].sort((a, b) => a - b)[2];
  const rounds = (values) => values.map((value) => value.toFixed(1)).join(', ');
  console.log(`${server.dialect}: ${median(wall).toFixed(1)} µs wall per row (rounds ${rounds(wall)}), ${median(cpu).toFixed(1)} µs of the server's CPU per row (rounds ${rounds(cpu)})`);
  process.exit(0);
}

try {
  await measure('every index');
  for (const index of ['logs_model', 'logs_channel_id', 'logs_token_id', 'logs_user_covering', 'logs_request_id', 'logs_created_at']) {
    connection.exec(`drop index ${index}`);
    await measure(`without ${index} and those above`);
  }
} finally {
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
}
