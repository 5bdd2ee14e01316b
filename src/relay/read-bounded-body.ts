import { readBodyChunks, type ChunkSource } from './read-body-chunks.js';

/**
 * An answer's body, read until it ends or reaches `limit` bytes (then the read stops and the body is
 * destroyed): at most `limit` bytes, and whether that is the whole body. Rejects as readBodyChunks does.
 */
export async function readBoundedBody(body: ChunkSource, limit: number): Promise<{ bytes: Buffer; whole: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const ending = await readBodyChunks(body, (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
    return size >= limit ? 'stop' : undefined;
  });
  return { bytes: Buffer.concat(chunks).subarray(0, limit), whole: ending === 'ended' };
}
