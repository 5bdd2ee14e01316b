/**
 * An upstream that says exactly what the test queued: each request takes the next queued reply (status,
 * headers, a whole JSON body, SSE events in the vendor's framing, or raw text pieces) and the reply says
 * how the body ends (normally, with a connection reset, or by hanging until the client leaves). Cutting a
 * reply "at any point" is slicing its events before queueing it. It knows no vendor: the bodies come from
 * `scripted-vendor-wire.ts` or from the test itself.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RecordedRequest } from './fake-server.js';

export type { RecordedRequest } from './fake-server.js';

/** A request as `fake-server.ts` records it, plus its body exactly as received (to check bytes forwarded untouched). */
export interface ScriptedRequest extends RecordedRequest {
  rawBody: string;
  /** The body's bytes (a multipart form with binary files is not text). */
  rawBytes: Buffer;
}

/** One SSE event: `event:` line when `event` is set; `data` written as is when a string, else as JSON. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/**
 * - `end`: the body ends normally (for a stream cut short, a clean EOF).
 * - `reset`: the socket is destroyed after the body's pieces; with no pieces at all, before the headers.
 * - `hang`: nothing more is written until the client leaves or the server closes.
 */
export type ReplyEnding = 'end' | 'reset' | 'hang';

export interface ScriptedReply {
  /** 200 unless set. */
  status?: number;
  /** Over the body kind's default content type. */
  headers?: Record<string, string>;
  /** A whole body, written in one piece (`application/json`). */
  json?: unknown;
  /** Events, one write each (`text/event-stream; charset=utf-8`). */
  sse?: SseEvent[];
  /** Line ending of the SSE framing: `\n` (OpenAI, Anthropic) unless `crlf` (Gemini's `\r\n`). */
  crlf?: boolean;
  /** Text written as is, one write per piece (`text/event-stream; charset=utf-8` unless `headers` say otherwise). */
  raw?: string[];
  /** Pause between two writes. */
  delayMs?: number;
  /** Pause between the last write and the ending (so a cut arrives apart from the last event). */
  endDelayMs?: number;
  ending?: ReplyEnding;
}

/** A reply, or a function of the request that builds one (to answer what the request asked, e.g. `stream`). */
export type ReplyScript = ScriptedReply | ((request: ScriptedRequest) => ScriptedReply);

export interface ScriptedUpstream {
  url: string;
  /** Every request received, in order, body parsed as JSON (else kept as text) and as received (`rawBody`). */
  requests: ScriptedRequest[];
  /** Queues replies; each request takes the first one left. */
  enqueue(...replies: ReplyScript[]): void;
  /** Answers requests when the queue is empty (without one: a 500 saying nothing was queued). */
  setFallback(fallback: ReplyScript | undefined): void;
  /** Drops the replies no request took. */
  clearQueue(): void;
  close(): Promise<void>;
}

/** The pieces of a reply as written on the wire, and its content type. */
function serializeReply(reply: ScriptedReply): { contentType: string; pieces: string[] } {
  const forms = [reply.json !== undefined, reply.sse !== undefined, reply.raw !== undefined].filter(Boolean).length;
  if (forms > 1) throw new Error('a scripted reply holds one of json, sse or raw');
  if (reply.sse !== undefined) {
    const newline = reply.crlf === true ? '\r\n' : '\n';
    const pieces = reply.sse.map((event) => {
      const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
      return `${event.event === undefined ? '' : `event: ${event.event}${newline}`}data: ${data}${newline}${newline}`;
    });
    return { contentType: 'text/event-stream; charset=utf-8', pieces };
  }
  if (reply.raw !== undefined) return { contentType: 'text/event-stream; charset=utf-8', pieces: reply.raw };
  return { contentType: 'application/json', pieces: reply.json === undefined ? [] : [JSON.stringify(reply.json)] };
}

export async function startScriptedUpstream(options: { fallback?: ReplyScript } = {}): Promise<ScriptedUpstream> {
  const requests: ScriptedRequest[] = [];
  const queue: ReplyScript[] = [];
  let fallback = options.fallback;

  const server = createServer((request, response) => {
    const recorded: ScriptedRequest = { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers, body: undefined, rawBody: '', rawBytes: Buffer.alloc(0) };
    requests.push(recorded);
    answer(request, response, recorded).catch((error: unknown) => {
      if (response.headersSent || response.destroyed) return void response.destroy();
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `scripted upstream failed: ${String(error)}`, type: 'server_error' } }));
    });
  });

  async function answer(request: IncomingMessage, response: ServerResponse, recorded: ScriptedRequest): Promise<void> {
    recorded.rawBytes = await readBody(request);
    recorded.rawBody = recorded.rawBytes.toString('utf8');
    recorded.body = parseBody(recorded.rawBody);
    const script = queue.shift() ?? fallback;
    if (script === undefined) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'scripted upstream: no reply queued', type: 'server_error' } }));
      return;
    }
    await play(typeof script === 'function' ? script(recorded) : script, response);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    setFallback: (next) => void (fallback = next),
    clearQueue: () => void (queue.length = 0),
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

async function play(reply: ScriptedReply, response: ServerResponse): Promise<void> {
  const { contentType, pieces } = serializeReply(reply);
  const ending = reply.ending ?? 'end';
  // Headers are flushed with the first write: a reset with nothing written resets before them.
  if (ending === 'reset' && pieces.length === 0) return void response.socket?.destroy();
  response.writeHead(reply.status ?? 200, { 'content-type': contentType, ...reply.headers });
  for (const [index, piece] of pieces.entries()) {
    if (index > 0 && (reply.delayMs ?? 0) > 0) await sleep(reply.delayMs);
    if (response.destroyed) return;
    await writePiece(response, piece);
  }
  if ((reply.endDelayMs ?? 0) > 0) await sleep(reply.endDelayMs);
  if (ending === 'end') response.end();
  else if (ending === 'reset') {
    // Let the last pieces reach the client before the reset, so the cut falls where the script put it.
    await sleep(20);
    response.socket?.destroy();
  }
}

/** Resolves once the text is handed to the socket, so a following reset cannot swallow it. */
function writePiece(response: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    response.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
