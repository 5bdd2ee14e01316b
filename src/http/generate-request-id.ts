import { randomFillSync } from 'node:crypto';

/** 80 random bits per id, drawn from a pool refilled every 256 ids. */
const randomBytesPerId = 10;
const pool = Buffer.alloc(randomBytesPerId * 256);
let offset = pool.length;
let prefixMs = Number.NaN;
let prefix = '';

/**
 * A request id: 32 hex digits — the time in milliseconds (48 bits, 12 digits), then 80 random bits, the
 * layout of a UUIDv7 or a ULID. The id is also the quota reservation's primary key and an index of the
 * request log, so ids that grow with time insert at the right edge of those B-trees: the requests
 * committed together touch one or two index pages instead of one random page each (fewer WAL frames on
 * SQLite, less page churn on PostgreSQL and InnoDB). Unique as long as no two ids of one millisecond draw
 * the same 80 bits.
 */
export function generateRequestId(nowMs: number = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  if (nowMs !== prefixMs) {
    prefixMs = nowMs;
    prefix = Math.floor(nowMs).toString(16).padStart(12, '0').slice(-12);
  }
  const id = prefix + pool.toString('hex', offset, offset + randomBytesPerId);
  offset += randomBytesPerId;
  return id;
}
