import { randomFillSync } from 'node:crypto';

/** One id's bytes: 6 of time, then 10 random. */
const bytesPerId = 16;
const timeBytes = 6;
/** Slots of random bytes, refilled every 256 ids; each id writes its time over its slot's first 6 bytes. */
const pool = Buffer.alloc(bytesPerId * 256);
let offset = pool.length;

/**
 * A request id: 32 hex digits — the time in milliseconds (48 bits, 12 digits), then 80 random bits, the
 * layout of a UUIDv7 or a ULID. The id is also the quota reservation's primary key and an index of the
 * request log, so ids that grow with time insert at the right edge of those B-trees: the requests
 * committed together touch one or two index pages instead of one random page each (fewer WAL frames on
 * SQLite, less page churn on PostgreSQL and InnoDB). Unique as long as no two ids of one millisecond draw
 * the same 80 bits. The time is written as bytes beside the random ones and the 16 bytes made hex at once
 * (a millisecond time is above 2^31, and `toString(16)` of such a number cost ~3k instructions per id).
 */
export function generateRequestId(nowMs: number = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  pool.writeUIntBE(Math.floor(nowMs) % 2 ** 48, offset, timeBytes);
  const id = pool.toString('hex', offset, offset + bytesPerId);
  offset += bytesPerId;
  return id;
}
