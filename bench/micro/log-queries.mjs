#!/usr/bin/env node
/**
 * A user's own log on a large `logs` table: the times of `GET /api/log/self` (a page and its count) and
 * `GET /api/log/self/stat`, as the repository runs them, on 2 M rows of which one user (id 1) has 1 M.
 * User 1's rows are spread over four tokens (ids 1–4: 70 %, 20 %, 9 %, 1 %); the other 999 users have
 * ~1,000 rows each and a token each. One row in 1,000 is a task refund (negative quota). Times are the
 * median of 5 runs after a warm-up, in ms, with the main thread's longest block during those runs (a 2 ms
 * timer's longest gap). The reads go through `handle.reader` as the gateway's (on a SQLite file: the reader
 * worker thread); LOG_QUERIES_ON=serving runs them on the serving connection instead, as before it.
 * Needs `npm run build`. Usage: node bench/micro/log-queries.mjs DATABASE_URL
 * (sqlite:/tmp/x.db, postgres://…/db, mysql://…/db; the database is migrated and filled once, if `logs`
 * is empty; a server database must exist). (Imports dist/ internals.)
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { createDatabase } = await load('storage/create-database.js');
const { runMigrations } = await load('storage/run-migrations.js');
const { LogsRepository } = await load('storage/logs-repository.js');

const url = process.argv[2];
if (url === undefined) throw new Error('usage: node bench/micro/log-queries.mjs DATABASE_URL');
const totalRows = 2_000_000;
const base = 1_790_000_000_000;

const handle = await createDatabase(url, { walCheckpoint: false });
const { db, dialect } = handle;
await runMigrations(db, dialect);

/** The INSERT … SELECT of rows first..last, in the dialect's own number source and string functions. */
function fillStatement(first, last) {
  const i = dialect === 'postgres' ? 'n.i::bigint' : dialect === 'mysql' ? 'n.seq' : 'n.i';
  // created_at: one row a second, ±1.5 s of jitter, so created_at order is not the row id's.
  const createdAt = `(${base} + ${i} * 1000 + (${i} * 7919) % 3000)`;
  const requestId =
    dialect === 'postgres'
      ? `lpad(to_hex(${createdAt}), 12, '0') || lpad(to_hex(${i}), 16, '0')`
      : dialect === 'mysql'
        ? `concat(lpad(hex(${createdAt}), 12, '0'), lpad(hex(${i}), 16, '0'))`
        : `printf('%012x%016x', ${createdAt}, ${i})`;
  const select = `select ${requestId}, ${createdAt},
      case when ${i} % 2 = 0 then 1 else 2 + ${i} % 999 end,
      case when ${i} % 2 = 1 then 1000 + ${i} % 999 when ${i} % 200 < 140 then 1 when ${i} % 200 < 180 then 2 when ${i} % 200 < 198 then 3 else 4 end,
      'bench', ${i} % 7 + 1,
      case ${i} % 5 when 0 then 'gpt-4o-mini' when 1 then 'gpt-4o' when 2 then 'claude-sonnet-4' when 3 then 'gemini-2.5-flash' else 'o3' end,
      'gpt-4o-mini',
      case when ${i} % 1000 = 0 then 'task-refund' else 'openai' end,
      '/v1/chat/completions', ${i} % 2,
      case when ${i} % 50 = 0 then 429 else 200 end,
      10 + ${i} % 300, ${i} % 500,
      case when ${i} % 1000 = 0 then -500 else 100 + ${i} % 900 end,
      ${i} % 4000, '[{"channel_id":1,"status":200}]', '[]', 'upstream', '127.0.0.1'`;
  const columns = `(request_id, created_at, user_id, token_id, token_name, channel_id, model, upstream_model, style, path, is_stream, status,
      input_tokens, output_tokens, quota, latency_ms, attempts, warnings, usage_source, ip)`;
  if (dialect === 'postgres') return `insert into logs ${columns} ${select} from generate_series(${first}, ${last}) as n(i)`;
  if (dialect === 'mysql') return `insert into logs ${columns} ${select} from seq_${first}_to_${last} as n`;
  return `insert into logs ${columns} with recursive n(i) as (select ${first} union all select i + 1 from n where i < ${last}) ${select} from n`;
}

const { count } = await db.selectFrom('logs').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
if (Number(count) === 0) {
  const started = Date.now();
  const chunk = 200_000;
  for (let first = 1; first <= totalRows; first += chunk) await sql.raw(fillStatement(first, Math.min(totalRows, first + chunk - 1))).execute(db);
  if (dialect === 'postgres') await sql`analyze logs`.execute(db);
  if (dialect === 'mysql') await sql`analyze table logs`.execute(db);
  if (dialect === 'sqlite') await sql`analyze`.execute(db);
  console.log(`filled ${totalRows} rows in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

const onServing = process.env.LOG_QUERIES_ON === 'serving';
const logs = new LogsRepository(db, onServing ? db : handle.reader);
const now = base + totalRows * 1000;
const day = 86_400_000;
const page = { page: 1, pageSize: 20 };

async function time(label, run) {
  await run();
  const times = [];
  let last = performance.now();
  let longestBlock = 0;
  const ticker = setInterval(() => {
    const tick = performance.now();
    longestBlock = Math.max(longestBlock, tick - last);
    last = tick;
  }, 2);
  for (let round = 0; round < 5; round += 1) {
    // A pause between runs lets the timer tick: otherwise runs on the serving connection, whose promises
    // settle in microtasks, would count as one block.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const started = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  longestBlock = Math.max(longestBlock, performance.now() - last);
  clearInterval(ticker);
  times.sort((a, b) => a - b);
  console.log(`${dialect} ${label}: ${times[2].toFixed(1)} ms (${times.map((value) => value.toFixed(0)).join(', ')}); main thread's longest block ${longestBlock.toFixed(1)} ms`);
}

const only = process.argv[3];
const cases = [
  ['list, no filter', () => logs.listForUser(1, {}, page)],
  ...[1, 2, 3, 4].map((tokenId) => [`list, token_id=${tokenId}`, () => logs.listForUser(1, { tokenId }, page)]),
  ['list, token_id of another user', () => logs.listForUser(1, { tokenId: 1001 }, page)],
  ['list, model', () => logs.listForUser(1, { model: 'o3' }, page)],
  ['list, last day', () => logs.listForUser(1, { from: now - day }, page)],
  ['stat, all time', () => logs.statForUser(1, {}, now)],
  ['stat, last day', () => logs.statForUser(1, { from: now - day }, now)],
  ['stat, token_id=2', () => logs.statForUser(1, { tokenId: 2 }, now)],
  ['stat, all time, small user', () => logs.statForUser(7, {}, now)],
];
for (const [label, run] of cases) if (only === undefined || label.includes(only)) await time(label, run);
await handle.close();
