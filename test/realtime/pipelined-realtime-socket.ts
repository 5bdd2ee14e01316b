/**
 * A raw Realtime client on a plain TCP socket that writes its upgrade request and its first frames in one
 * write, before it has read the 101 or any server event — what a client that pipelines does, and what `ws`
 * and the openai SDK never do (they send only once open). It reads the gateway's answer by hand: the status
 * line, then each server frame (unmasked), text frames parsed as events in the order they came.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface PipelinedSession {
  /** The first line of the gateway's answer (`HTTP/1.1 101 Switching Protocols`), once it came. */
  status(): string | undefined;
  /** The server's events, in the order they came. */
  events: Array<{ type: string } & Record<string, unknown>>;
  /** The close code the server sent, once it did. */
  closeCode(): number | undefined;
  /** Sends a close frame and drops the connection. */
  end(): void;
}

/** A client text frame: final, masked (RFC 6455 §5.3) with a random key. */
export function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const mask = randomBytes(4);
  const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  if (payload.length > 0xffff) throw new Error('frame too long for this test client');
  const masked = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) masked[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}

export function openPipelinedSession(gatewayUrl: string, path: string, headers: string[], frames: string[]): PipelinedSession {
  const url = new URL(gatewayUrl);
  const socket: Socket = connect(Number(url.port), url.hostname);
  const events: PipelinedSession['events'] = [];
  let status: string | undefined;
  let closeCode: number | undefined;
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    if (status === undefined) {
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      status = pending.subarray(0, pending.indexOf('\r\n')).toString('latin1');
      pending = pending.subarray(end + 4);
    }
    for (;;) {
      if (pending.length < 2) return;
      const opcode = pending[0]! & 0x0f;
      let length = pending[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (pending.length < 4) return;
        length = pending.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (pending.length < 10) return;
        length = Number(pending.readBigUInt64BE(2));
        offset = 10;
      }
      if (pending.length < offset + length) return;
      const payload = pending.subarray(offset, offset + length);
      pending = pending.subarray(offset + length);
      if (opcode === 1) events.push(JSON.parse(payload.toString('utf8')) as PipelinedSession['events'][number]);
      if (opcode === 8) closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
    }
  });
  socket.on('error', () => undefined);
  const request = [`GET ${path} HTTP/1.1`, `Host: ${url.host}`, 'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, ...headers];
  socket.write(Buffer.concat([Buffer.from(`${request.join('\r\n')}\r\n\r\n`, 'latin1'), ...frames.map(maskedTextFrame)]));
  return {
    status: () => status,
    events,
    closeCode: () => closeCode,
    end() {
      if (!socket.destroyed) socket.end(Buffer.from([0x88, 0x80, 0, 0, 0, 0]));
      setTimeout(() => socket.destroy(), 100).unref();
    },
  };
}
