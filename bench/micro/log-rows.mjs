#!/usr/bin/env node
/**
 * Micro-benchmark behind BENCHMARKS.md session 13: what one request log row costs on SQLite. The
 * gateway's own sink (`sqliteLogRowSink`, dist/) inserts batches of 50 rows through its group commit (one
 * transaction each), on the schema the migrations build. It measures µs of CPU per row with every index on
 * `logs`, then again after dropping the secondary indexes one by one, so each index's share can be read off.
 * Needs `npm run build`. Usage: node bench/micro/log-rows.mjs [batchesPerRound=400]
 * (Imports dist/ internals: if their shape changed, this file needs the same change.)
 */
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
const batchSize = 50;
const dir = mkdtempSync(join(tmpdir(), 'log-rows-micro-'));
const handle = await createDatabase(`sqlite:${join(dir, 'relay.db')}`, { cacheMb: 4 });
await runMigrations(handle.db, handle.dialect);
const connection = handle.sqliteConnection;
const sink = sqliteLogRowSink(connection, handle.sqliteGroupCommit);

let sequence = 0;
/** A chat request's row as the relay writes it; ids time-ordered as the gateway's request ids are. */
function row() {
  sequence += 1;
  const createdAt = 1_795_750_000_000 + sequence;
  return {
    request_id: `${createdAt.toString(16).padStart(16, '0')}ab12cd34ef567890`,
    created_at: createdAt,
    user_id: 1,
    token_id: 1,
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

try {
  await measure('every index');
  for (const index of ['logs_model', 'logs_channel_id', 'logs_token_id', 'logs_user_id_created_at', 'logs_request_id', 'logs_created_at']) {
    connection.exec(`drop index ${index}`);
    await measure(`without ${index} and those above`);
  }
} finally {
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
}
