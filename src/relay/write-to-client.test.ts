import { EventEmitter } from 'node:events';
import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ClientStreamWriter } from './write-to-client.js';

/** A ServerResponse stand-in: records writes; `full` makes write() report a full buffer until 'drain'. */
function fakeReply(full = false) {
  const raw = Object.assign(new EventEmitter(), {
    heads: [] as Record<string, string>[],
    writes: [] as (string | Uint8Array)[],
    ended: undefined as string | undefined | null,
    destroyed: false,
    writableEnded: false,
    writeHead(_status: number, headers: Record<string, string>) {
      raw.heads.push(headers);
      return raw;
    },
    write(text: string | Uint8Array) {
      raw.writes.push(text);
      return !full;
    },
    end(last?: string) {
      raw.ended = last ?? null;
      raw.writableEnded = true;
    },
  });
  let hijacked = 0;
  const reply = { raw, hijack: () => (hijacked += 1) } as unknown as FastifyReply;
  return { reply, raw, hijacked: () => hijacked };
}

describe('ClientStreamWriter', () => {
  it('sends the headers with the first text and everything queued in one write per flush', () => {
    const { reply, raw, hijacked } = fakeReply();
    const meter = { committed: false };
    const writer = new ClientStreamWriter(reply, meter, () => ({ 'x-request-id': 'r' }));
    writer.write('data: a\n\n');
    expect(meter.committed).toBe(true);
    expect(hijacked()).toBe(1);
    writer.write('data: b\n\n');
    expect(raw.writes).toEqual([]);
    writer.flush();
    writer.flush();
    writer.write('data: c\n\n');
    writer.end('data: [DONE]\n\n');
    expect(raw.heads).toEqual([{ 'x-request-id': 'r' }]);
    expect(raw.writes).toEqual(['data: a\n\ndata: b\n\n', 'data: c\n\n']);
    expect(raw.ended).toBe('data: [DONE]\n\n');
  });

  it('corks the socket for the rest of the event-loop turn, so the writes of one read and the end leave together', async () => {
    const { reply, raw } = fakeReply();
    const socket = { destroyed: false, corks: 0, uncorks: 0, cork: () => (socket.corks += 1), uncork: () => (socket.uncorks += 1) };
    Object.assign(raw, { socket });
    const writer = new ClientStreamWriter(reply, { committed: false }, () => ({}));
    writer.write('data: a\n\n');
    writer.flush();
    writer.end('data: [DONE]\n\n');
    expect({ corks: socket.corks, uncorks: socket.uncorks }).toEqual({ corks: 1, uncorks: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    expect({ corks: socket.corks, uncorks: socket.uncorks }).toEqual({ corks: 1, uncorks: 1 });
  });

  it('returns no promise when the client took everything', () => {
    const { reply } = fakeReply();
    const writer = new ClientStreamWriter(reply, { committed: false }, () => ({}));
    writer.write('data: a\n\n');
    expect(writer.flushAndDrain()).toBeUndefined();
  });

  it('keeps text and forwarded bytes in order, joining neighbouring texts, and sends the bytes uncopied', () => {
    const { reply, raw } = fakeReply();
    const meter = { committed: false };
    const writer = new ClientStreamWriter(reply, meter, () => ({}));
    const upstreamRead = Buffer.from('data: b\n\n');
    writer.writeBytes(upstreamRead);
    expect(meter.committed).toBe(true);
    writer.write('data: c\n\n');
    writer.write('data: d\n\n');
    writer.writeBytes(new Uint8Array(0));
    writer.flush();
    expect(raw.writes).toEqual([upstreamRead, 'data: c\n\ndata: d\n\n']);
    expect(raw.writes[0]).toBe(upstreamRead);
  });

  it('commits with an empty first text, so an empty stream still gets its headers', () => {
    const { reply, raw } = fakeReply();
    const meter = { committed: false };
    const writer = new ClientStreamWriter(reply, meter, () => ({}));
    writer.write('');
    writer.end();
    expect(meter.committed).toBe(true);
    expect(raw.heads).toHaveLength(1);
    expect(raw.writes).toEqual([]);
    expect(raw.ended).toBeNull();
  });

  it('waits for the client to drain when its buffer is full', async () => {
    const { reply, raw } = fakeReply(true);
    const writer = new ClientStreamWriter(reply, { committed: false }, () => ({}));
    writer.write('data: a\n\n');
    let drained = false;
    const pending = writer.flushAndDrain();
    expect(pending).toBeInstanceOf(Promise);
    const waiting = pending!.then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    raw.emit('drain');
    await waiting;
    expect(drained).toBe(true);
    expect(raw.writes).toEqual(['data: a\n\n']);
  });
});
