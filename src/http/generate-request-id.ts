import { randomFillSync } from 'node:crypto';

const idBytes = 16;
const pool = Buffer.alloc(idBytes * 256);
let offset = pool.length;

/**
 * A request id: 128 random bits as 32 hex digits. Drawn from a pool of random bytes refilled every 256 ids,
 * a few times cheaper per request than `randomUUID().replaceAll('-', '')`.
 */
export function generateRequestId(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + idBytes);
  offset += idBytes;
  return id;
}
