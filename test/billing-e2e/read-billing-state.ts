import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../src/storage/database-schema.js';

/** Both balances a request draws on, as stored. Limited wallets: balance + used = grant at every rest point. */
export interface AccountBalances {
  token: { remain: number; used: number; requests: number };
  user: { quota: number; used: number; requests: number };
}

export async function readBalances(db: Database, tokenName: string): Promise<AccountBalances> {
  const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota', 'request_count', 'user_id']).where('name', '=', tokenName).executeTakeFirstOrThrow();
  const user = await db.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', token.user_id).executeTakeFirstOrThrow();
  return {
    token: { remain: Number(token.remain_quota), used: Number(token.used_quota), requests: Number(token.request_count) },
    user: { quota: Number(user.quota), used: Number(user.used_quota), requests: Number(user.request_count) },
  };
}

export interface ReservationRow {
  id: string;
  amount: number;
  state: string;
  settledAmount: number | null;
  owner: string;
}

export async function readReservations(db: Database): Promise<ReservationRow[]> {
  const rows = await db.selectFrom('quota_reservations').select(['id', 'amount', 'state', 'settled_amount', 'owner']).orderBy('created_at').execute();
  return rows.map((row) => ({
    id: row.id,
    amount: Number(row.amount),
    state: row.state,
    settledAmount: row.settled_amount === null ? null : Number(row.settled_amount),
    owner: row.owner,
  }));
}

export interface LogSummary {
  rows: number;
  quota: number;
  statuses: number[];
  requestIds: string[];
}

export async function readLogSummary(db: Database): Promise<LogSummary> {
  const rows = await db.selectFrom('logs').select(['request_id', 'quota', 'status']).orderBy('id').execute();
  return {
    rows: rows.length,
    quota: rows.reduce((total, row) => total + Number(row.quota), 0),
    statuses: rows.map((row) => Number(row.status)),
    requestIds: rows.map((row) => row.request_id),
  };
}

/** Log rows are written in batches (every 500 ms): waits until `count` rows exist, or the deadline. */
export async function waitForLogRows(db: Database, count: number, timeoutMs = 5000): Promise<LogSummary> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const summary = await readLogSummary(db);
    if (summary.rows >= count || Date.now() > deadline) return summary;
    await sleep(50);
  }
}

/** Polls `probe` until it returns a value other than undefined, or throws with `what` after the deadline. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * pg-pool's `end()` resolves before its sockets have closed; `DROP DATABASE … WITH (FORCE)` would then
 * kill those backends and the FATAL would reach a pool that no longer listens (an unhandled error). So
 * wait until the server sees no other connection to the database first.
 */
export async function waitUntilDisconnected(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const { rows } = await client.query<{ others: number }>('select count(*)::int as others from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
      if (rows[0]?.others === 0) return;
      await sleep(20);
    }
  } finally {
    await client.end();
  }
}
