/**
 * The socket side every fake upstream shares: a real loopback server that records each request,
 * applies one queued fault per request (reset, status, slow first byte, cut or stall after the first
 * chunk) and writes the reply its dialect formats, whole or piece by piece. A dialect says only what
 * its vendor answers and how the vendor serializes it; it never touches the socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RecordedRequest {
  method: string;
  /** The request target as received, query string included. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the raw text when the body is not JSON, or undefined when empty. */
  body: any;
}

export type FakeFault =
  /** `delayMs`: answered after that wait (an error that comes late, while other requests go on). */
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  | { kind: 'reset-before-headers' }
  | { kind: 'cut-after-first-chunk' }
  | { kind: 'slow-first-byte'; delayMs: number }
  | { kind: 'stall-after-first-chunk'; delayMs: number };

export type StatusFault = Extract<FakeFault, { kind: 'status' }>;

/** A whole body, written at once (or, under a fault that acts after the first chunk, in two halves). */
export interface WholeReply {
  kind: 'whole';
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** A 200 stream, written piece by piece with `chunkDelayMs` between pieces. */
export interface StreamReply {
  kind: 'stream';
  headers: Record<string, string>;
  pieces: string[];
  chunkDelayMs: number;
}

export type WireReply = WholeReply | StreamReply;

export type ParsedBody = { ok: true; value: unknown } | { ok: false };

/** One request as a dialect sees it, its body read. */
export interface FakeExchange<Options> {
  request: IncomingMessage;
  recorded: RecordedRequest;
  parsed: ParsedBody;
  /** The options as they were when the request arrived. */
  options: Options;
  /** Numbers this server's requests from 1, so response ids are stable from run to run. */
  sequence: number;
}

export interface FakeDialect<Options> {
  answer(exchange: FakeExchange<Options>): WireReply;
  /** A queued `status` fault as the vendor sends it: the fault's body, or the vendor's error for that status. */
  answerStatusFault(fault: StatusFault, sequence: number): Omit<WholeReply, 'kind' | 'status'>;
  /** A bug in the fake itself is answered with a 500 saying so, rather than a reset that would pass for a fault. */
  answerInternalError(message: string, sequence: number): Omit<WholeReply, 'kind' | 'status'>;
}

export interface FakeUpstream<Options> {
  url: string;
  requests: RecordedRequest[];
  enqueueFault(fault: FakeFault): void;
  setOptions(options: Partial<Options>): void;
  close(): Promise<void>;
}

export async function startFakeServer<Options>(initialOptions: Options, dialect: FakeDialect<Options>): Promise<FakeUpstream<Options>> {
  let options = initialOptions;
  const requests: RecordedRequest[] = [];
  const faults: FakeFault[] = [];
  const closing = new AbortController();
  let sequence = 0;

  const server = createServer((request, response) => {
    const recorded: RecordedRequest = { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers, body: undefined };
    requests.push(recorded);
    const fault = faults.shift();
    sequence++;
    const arrival = { request, recorded, options, sequence };
    serve(arrival, response, fault, dialect, closing.signal).catch((error: unknown) => {
      // An aborted wait (client gone, server closing) or a write on a dead socket: drop the connection.
      if (response.headersSent || response.destroyed || closing.signal.aborted) return void response.destroy();
      const reply = dialect.answerInternalError(`fake upstream failed: ${String(error)}`, arrival.sequence);
      response.writeHead(500, reply.headers).end(reply.text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueueFault: (fault) => void faults.push(fault),
    setOptions: (changes) => void (options = { ...options, ...changes }),
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

async function serve<Options>(
  arrival: Omit<FakeExchange<Options>, 'parsed'>,
  response: ServerResponse,
  fault: FakeFault | undefined,
  dialect: FakeDialect<Options>,
  serverClosing: AbortSignal,
): Promise<void> {
  const clientGone = new AbortController();
  response.on('close', () => clientGone.abort());
  const signal = AbortSignal.any([serverClosing, clientGone.signal]);

  const rawBody = await readBody(arrival.request);
  const parsed = parseBody(rawBody);
  arrival.recorded.body = parsed.ok ? parsed.value : rawBody;

  if (fault?.kind === 'reset-before-headers') {
    arrival.request.socket.destroy();
    return;
  }
  if (fault?.kind === 'status') {
    if (fault.delayMs !== undefined) await sleep(fault.delayMs, undefined, { signal });
    const reply = dialect.answerStatusFault(fault, arrival.sequence);
    response.writeHead(fault.status, { ...reply.headers, ...fault.headers });
    response.end(reply.text);
    return;
  }
  if (fault?.kind === 'slow-first-byte') await sleep(fault.delayMs, undefined, { signal });

  const reply = dialect.answer({ ...arrival, parsed });
  const afterFirstChunk = fault?.kind === 'cut-after-first-chunk' || fault?.kind === 'stall-after-first-chunk' ? fault : undefined;
  if (reply.kind === 'whole') await writeWhole(response, reply, afterFirstChunk, signal);
  else await writeStream(response, reply, afterFirstChunk, signal);
}

// ---- Writing replies, with the faults that act after the first chunk ----

type AfterFirstChunkFault = Extract<FakeFault, { kind: 'cut-after-first-chunk' | 'stall-after-first-chunk' }>;

async function writeWhole(response: ServerResponse, reply: WholeReply, fault: AfterFirstChunkFault | undefined, signal: AbortSignal): Promise<void> {
  response.writeHead(reply.status, reply.headers);
  if (fault === undefined) {
    response.end(reply.text);
    return;
  }
  // A whole body's "first chunk" is its first half.
  const half = Math.floor(reply.text.length / 2);
  await writeChunk(response, reply.text.slice(0, half));
  if (fault.kind === 'cut-after-first-chunk') return void response.socket?.destroy();
  await sleep(fault.delayMs, undefined, { signal });
  response.end(reply.text.slice(half));
}

async function writeStream(response: ServerResponse, reply: StreamReply, fault: AfterFirstChunkFault | undefined, signal: AbortSignal): Promise<void> {
  response.writeHead(200, reply.headers);
  for (const [index, piece] of reply.pieces.entries()) {
    if (index > 0 && reply.chunkDelayMs > 0) await sleep(reply.chunkDelayMs, undefined, { signal });
    await writeChunk(response, piece);
    if (index === 0 && fault?.kind === 'cut-after-first-chunk') return void response.socket?.destroy();
    if (index === 0 && fault?.kind === 'stall-after-first-chunk') await sleep(fault.delayMs, undefined, { signal });
  }
  response.end();
}

/** Resolves once the text is handed to the socket, so a following destroy cannot swallow it. */
function writeChunk(response: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (response.destroyed) return reject(new Error('response already closed'));
    response.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

// ---- Reading requests ----

function parseBody(raw: string): ParsedBody {
  if (raw === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
