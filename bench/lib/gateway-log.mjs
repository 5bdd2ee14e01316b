/**
 * The gateway's own view of its streams, from its request log (SQLite runs only): each row's
 * `first_token_ms` is the time from the relay pipeline's start to the first chunk it relayed. Scenario 5
 * uses it to tell the gateway's delay from the load core's (the client measures both together).
 */
import Database from 'better-sqlite3';
import { summarize } from './stats.mjs';

export function gatewayFirstTokens(databaseUrl, sinceMs, slowMs) {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const connection = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
  try {
    const rows = connection.prepare('select first_token_ms from logs where is_stream = 1 and created_at >= ? and first_token_ms is not null').all(sinceMs);
    const samples = rows.map((row) => Number(row.first_token_ms));
    return { streams: samples.length, slow: samples.filter((ms) => ms > slowMs).length, ms: summarize(samples) };
  } finally {
    connection.close();
  }
}
