import { describe, expect, it } from 'vitest';
import { readBodyChunks } from '../relay/read-body-chunks.js';
import { UpstreamBody, UpstreamBodyTooLarge } from './upstream-body.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

function createBody(highWaterMark?: number, maxWholeBytes?: number) {
  const calls = { resumed: 0, aborted: [] as Error[] };
  const body = new UpstreamBody(
    () => (calls.resumed += 1),
    (reason) => calls.aborted.push(reason),
    highWaterMark,
    maxWholeBytes,
  );
  return { body, calls };
}

describe('UpstreamBody', () => {
  it('holds chunks that arrive before anyone listens and delivers them in order', async () => {
    const { body, calls } = createBody();
    // Headers and the first chunks in one socket read: nobody listens yet.
    expect(body.push(Buffer.from('a'))).toBe(true);
    expect(body.push(Buffer.from('b'))).toBe(true);
    const seen: string[] = [];
    const read = readBodyChunks(body, (chunk) => void seen.push(chunk.toString()));
    expect(seen).toEqual([]);
    await tick();
    expect(seen).toEqual(['a', 'b']);
    // undici was never asked to wait, so it is never asked to go on.
    expect(calls.resumed).toBe(0);
    expect(body.push(Buffer.from('c'))).toBe(true);
    body.complete();
    await expect(read).resolves.toBe('ended');
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(calls.aborted).toEqual([]);
  });

  it('ends a body completed before anyone listened once its chunks are delivered', async () => {
    const { body } = createBody();
    body.push(Buffer.from('{"ok":'));
    body.push(Buffer.from('true}'));
    body.complete();
    expect(await body.json()).toEqual({ ok: true });
  });

  it('stops delivering when a listener pauses, holds what undici reads meanwhile, and goes on at resume()', async () => {
    const { body, calls } = createBody();
    const seen: string[] = [];
    let release: () => void = () => undefined;
    const read = readBodyChunks(body, (chunk) => {
      seen.push(chunk.toString());
      // The client's buffer is full after the first chunk.
      return seen.length === 1 ? new Promise<void>((resolve) => (release = resolve)) : undefined;
    });
    await tick();
    // Below the high-water mark undici may read on; the chunk waits in the body.
    expect(body.push(Buffer.from('1'))).toBe(true);
    expect(body.push(Buffer.from('2'))).toBe(true);
    body.complete();
    await tick();
    expect(seen).toEqual(['1']);
    release();
    await expect(read).resolves.toBe('ended');
    expect(seen).toEqual(['1', '2']);
    expect(calls.resumed).toBe(0);
  });

  it('asks undici to stop reading once more than the high-water mark is held, and to go on once delivered', async () => {
    const { body, calls } = createBody(4);
    expect(body.push(Buffer.from('ab'))).toBe(true);
    expect(body.push(Buffer.from('cd'))).toBe(false);
    const seen: string[] = [];
    const read = readBodyChunks(body, (chunk) => void seen.push(chunk.toString()));
    await tick();
    expect(seen).toEqual(['ab', 'cd']);
    expect(calls.resumed).toBe(1);
    body.complete();
    await expect(read).resolves.toBe('ended');
  });

  it('aborts the upstream request when destroyed before its end, and not after it', async () => {
    const early = createBody();
    const read = readBodyChunks(early.body, () => 'stop');
    await tick();
    early.body.push(Buffer.from('x'));
    await expect(read).resolves.toBe('stopped');
    expect(early.calls.aborted).toHaveLength(1);
    // Whatever undici still hands over or reports after the abort is ignored.
    expect(early.body.push(Buffer.from('y'))).toBe(false);
    early.body.fail(new Error('aborted'));
    expect(early.body.errored).toBeNull();

    const late = createBody();
    late.body.push(Buffer.from('done'));
    late.body.complete();
    expect((await late.body.bytes()).toString()).toBe('done');
    late.body.destroy();
    expect(late.calls.aborted).toEqual([]);
  });

  it('passes a failure after the headers to the reader, and keeps it when nobody listens', async () => {
    const { body } = createBody();
    const read = readBodyChunks(body, () => undefined);
    await tick();
    body.push(Buffer.from('partial'));
    body.fail(new Error('other side closed'));
    await expect(read).rejects.toThrow('other side closed');

    const unread = createBody().body;
    // No 'error' listener: kept, not thrown.
    expect(() => unread.fail(new Error('reset'))).not.toThrow();
    expect(unread.errored?.message).toBe('reset');
    await expect(unread.text()).rejects.toThrow('reset');
  });

  it('reads a whole body as bytes, text or JSON', async () => {
    const make = () => {
      const { body } = createBody();
      body.push(Buffer.from('{"n":'));
      body.push(Buffer.from('1}'));
      body.complete();
      return body;
    };
    expect((await make().bytes()).toString()).toBe('{"n":1}');
    expect(await make().text()).toBe('{"n":1}');
    expect(await make().json()).toEqual({ n: 1 });
  });

  it('gives up a whole-body read past its bound, aborting the upstream request and dropping what it held', async () => {
    const { body, calls } = createBody(undefined, 10);
    const read = body.bytes();
    body.push(Buffer.from('0123456789'));
    await tick();
    // Exactly at the bound: still reading.
    expect(body.destroyed).toBe(false);
    body.push(Buffer.from('x'));
    const error = await read.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(UpstreamBodyTooLarge);
    expect((error as Error).message).toBe('the upstream answer is larger than 10 bytes (MAX_UPSTREAM_RESPONSE_MB)');
    expect(body.destroyed).toBe(true);
    expect(calls.aborted).toEqual([error]);
    // What arrives after the abort is refused, not held.
    expect(body.push(Buffer.from('more'))).toBe(false);

    const { body: atBound } = createBody(undefined, 10);
    atBound.push(Buffer.from('0123456789'));
    atBound.complete();
    expect((await atBound.bytes()).toString()).toBe('0123456789');
  });

  it('reads whole what it held and what comes after, resuming an upstream that waited, as the only reader', async () => {
    const { body, calls } = createBody(4);
    expect(body.push(Buffer.from('abcd'))).toBe(false);
    const read = body.bytes();
    // Held past the high-water mark: undici waited, and is asked to go on at once.
    expect(calls.resumed).toBe(1);
    await expect(body.bytes()).rejects.toThrow('already being read');
    expect(body.push(Buffer.from('efgh'))).toBe(true);
    body.complete();
    expect((await read).toString()).toBe('abcdefgh');
    expect(calls.aborted).toEqual([]);
  });

  it('rejects a whole-body read when the body fails or is destroyed before its end', async () => {
    const failing = createBody().body;
    const failed = failing.bytes();
    failing.push(Buffer.from('part'));
    failing.fail(new Error('other side closed'));
    await expect(failed).rejects.toThrow('other side closed');

    const { body, calls } = createBody();
    const destroyed = body.bytes();
    body.push(Buffer.from('part'));
    body.destroy();
    await expect(destroyed).rejects.toThrow('Premature close');
    expect(calls.aborted).toHaveLength(1);
  });
});
