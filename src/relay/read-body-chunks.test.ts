import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyChunks } from './read-body-chunks.js';

const texts = (chunks: Buffer[]) => chunks.map((chunk) => chunk.toString());

describe('readBodyChunks', () => {
  it('hands every chunk over in order and resolves at the end', async () => {
    const seen: Buffer[] = [];
    const ending = await readBodyChunks(Readable.from([Buffer.from('a'), Buffer.from('b'), Buffer.from('c')]), (chunk) => void seen.push(chunk));
    expect(ending).toBe('ended');
    expect(texts(seen)).toEqual(['a', 'b', 'c']);
  });

  it('pauses the body while the promise onChunk returned is pending', async () => {
    const body = new PassThrough();
    const seen: Buffer[] = [];
    let release: () => void = () => undefined;
    const reading = readBodyChunks(body, (chunk) => {
      seen.push(chunk);
      if (seen.length === 1) return new Promise<void>((resolve) => (release = resolve));
      return undefined;
    });
    body.write('first');
    await new Promise((resolve) => setImmediate(resolve));
    body.write('second');
    await new Promise((resolve) => setImmediate(resolve));
    expect(texts(seen)).toEqual(['first']);
    expect(body.isPaused()).toBe(true);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(texts(seen)).toEqual(['first', 'second']);
    body.end();
    expect(await reading).toBe('ended');
  });

  it("stops at 'stop' and destroys the body, releasing the upstream connection", async () => {
    const body = new PassThrough();
    const seen: Buffer[] = [];
    const reading = readBodyChunks(body, (chunk) => (seen.push(chunk), 'stop'));
    body.write('one');
    body.write('two');
    expect(await reading).toBe('stopped');
    expect(texts(seen)).toEqual(['one']);
    expect(body.destroyed).toBe(true);
  });

  it('rejects with what onChunk throws, and destroys the body', async () => {
    const body = new PassThrough();
    const reading = readBodyChunks(body, () => {
      throw new Error('event too large');
    });
    body.write('x');
    await expect(reading).rejects.toThrow('event too large');
    expect(body.destroyed).toBe(true);
  });

  it("rejects with the body's error, and on a close before the end", async () => {
    const failing = new PassThrough();
    const reading = readBodyChunks(failing, () => undefined);
    failing.destroy(new Error('socket hang up'));
    await expect(reading).rejects.toThrow('socket hang up');

    const cut = new PassThrough();
    const cutReading = readBodyChunks(cut, () => undefined);
    cut.write('partial');
    cut.destroy();
    await expect(cutReading).rejects.toThrow('Premature close');
  });

  it('rejects at once for a body that failed or closed before it was read', async () => {
    const failed = new PassThrough();
    failed.on('error', () => undefined);
    failed.destroy(new Error('reset'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readBodyChunks(failed, () => undefined)).rejects.toThrow('reset');
    const closed = new PassThrough();
    closed.destroy();
    await expect(readBodyChunks(closed, () => undefined)).rejects.toThrow('Premature close');
  });
});
