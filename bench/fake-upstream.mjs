#!/usr/bin/env node
/**
 * The benchmark's fake OpenAI-style upstream: zero dependencies (node:http only), as cheap per request as
 * a real HTTP server can be, so that what the benchmark measures is the gateway and not the fake.
 *
 *   POST /v1/chat/completions            fixed small chat.completion with usage
 *   POST /v1/chat/completions stream:true SSE: N chat.completion.chunk events, a usage chunk when
 *                                         `stream_options.include_usage` is true, then `data: [DONE]`
 *   GET  /healthz                        200 "ok"
 *
 * Stream shape, most specific first (so a request that passes through the gateway can carry its own):
 *   request body  `"bench": {"chunks": 20, "delay_ms": 20, "first_byte_ms": 0, "ts": true}`
 *                 (unknown fields reach the upstream untouched, so this travels through the gateway)
 *   query string  `?chunks=20&delay_ms=20&first_byte_ms=0&ts=1`
 *   arguments     `--chunks 20 --delay-ms 0 --first-byte-ms 0`
 *   environment   `FAKE_CHUNKS`, `FAKE_CHUNK_DELAY_MS`, `FAKE_FIRST_BYTE_MS`
 * `ts` adds `"bench_t":"<CLOCK_MONOTONIC ns>"` to every chunk: the moment the fake wrote it, comparable
 * with `process.hrtime.bigint()` in any process on the same machine (per-chunk delivery latency).
 *
 * Other arguments: `--port 0` (ephemeral), `--host 127.0.0.1`. Once listening it prints one JSON line
 * `{"listening":"http://127.0.0.1:PORT"}` on stdout.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.FAKE_PORT ?? '0' },
    host: { type: 'string', default: process.env.FAKE_HOST ?? '127.0.0.1' },
    chunks: { type: 'string', default: process.env.FAKE_CHUNKS ?? '20' },
    'delay-ms': { type: 'string', default: process.env.FAKE_CHUNK_DELAY_MS ?? '0' },
    'first-byte-ms': { type: 'string', default: process.env.FAKE_FIRST_BYTE_MS ?? '0' },
  },
});

const defaults = {
  chunks: toCount(args.chunks, 20),
  delayMs: toCount(args['delay-ms'], 0),
  firstByteMs: toCount(args['first-byte-ms'], 0),
  ts: false,
};

const created = Math.floor(Date.now() / 1000);
const model = 'gpt-4o-mini';
const promptTokens = 14;
const completionText = 'Hello! This is a fixed answer from the benchmark upstream.';
const completionTokens = 12;

// ---- Precomputed non-streaming answer (bytes and headers built once) ----
const completionBody = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench0000000000000000000001',
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: completionText, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_bench00000',
  }),
);
const jsonHeaders = ['content-type', 'application/json', 'content-length', String(completionBody.length), 'openai-processing-ms', '1'];
const sseHeaders = ['content-type', 'text/event-stream; charset=utf-8', 'cache-control', 'no-cache', 'openai-processing-ms', '1'];

// ---- Precomputed stream events (the `ts` variant is built per chunk) ----
const chunkPrefix = `{"id":"chatcmpl-bench0000000000000000000002","object":"chat.completion.chunk","created":${created},"model":"${model}","system_fingerprint":"fp_bench00000"`;
const word = (index) => `tok${index} `;
function chunkJson(index, count, stamp) {
  const delta = index === 0 ? `{"role":"assistant","content":"${word(index)}","refusal":null}` : `{"content":"${word(index)}"}`;
  const finish = index === count - 1 ? '"stop"' : 'null';
  const t = stamp === undefined ? '' : `,"bench_t":"${stamp}"`;
  return `${chunkPrefix}${t},"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}`;
}
function usageEvent(count) {
  return `data: ${chunkPrefix},"choices":[],"usage":{"prompt_tokens":${promptTokens},"completion_tokens":${count},"total_tokens":${promptTokens + count},"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}\n\n`;
}
const doneEvent = 'data: [DONE]\n\n';
/** chunk count → the whole instant stream as one string (for delay 0 without timestamps). */
const instantStreams = new Map();
function instantStream(count, withUsage) {
  const key = `${count}:${withUsage}`;
  let text = instantStreams.get(key);
  if (text === undefined) {
    text = '';
    for (let index = 0; index < count; index++) text += `data: ${chunkJson(index, count)}\n\n`;
    if (withUsage) text += usageEvent(count);
    text += doneEvent;
    instantStreams.set(key, text);
  }
  return text;
}

const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 }, (request, response) => {
  if (request.method === 'GET') {
    if (request.url === '/healthz') return void response.writeHead(200, ['content-type', 'text/plain']).end('ok');
    return void notFound(response);
  }
  const queryAt = request.url.indexOf('?');
  const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
  if (request.method !== 'POST' || path !== '/v1/chat/completions') return void notFound(response);
  const parts = [];
  request.on('data', (part) => parts.push(part));
  request.on('end', () => {
    let body;
    try {
      body = JSON.parse(parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8'));
    } catch {
      return void sendError(response, 400, 'We could not parse the JSON body of your request.');
    }
    if (body === null || typeof body !== 'object' || typeof body.model !== 'string') return void sendError(response, 400, 'you must provide a model parameter');
    if (body.stream !== true) return void response.writeHead(200, jsonHeaders).end(completionBody);
    const shape = streamShape(body, queryAt === -1 ? undefined : new URLSearchParams(request.url.slice(queryAt + 1)));
    const withUsage = body.stream_options !== null && typeof body.stream_options === 'object' && body.stream_options.include_usage === true;
    if (shape.firstByteMs > 0) setTimeout(() => startStream(response, shape, withUsage), shape.firstByteMs);
    else startStream(response, shape, withUsage);
  });
});

function startStream(response, shape, withUsage) {
  if (response.destroyed) return;
  response.writeHead(200, sseHeaders);
  if (shape.delayMs === 0 && !shape.ts) {
    response.end(instantStream(shape.chunks, withUsage));
    return;
  }
  let index = 0;
  const next = () => {
    if (response.destroyed) return;
    const stamp = shape.ts ? process.hrtime.bigint() : undefined;
    response.write(`data: ${chunkJson(index, shape.chunks, stamp)}\n\n`);
    index++;
    if (index < shape.chunks) {
      if (shape.delayMs > 0) setTimeout(next, shape.delayMs);
      else next();
      return;
    }
    response.end(withUsage ? usageEvent(shape.chunks) + doneEvent : doneEvent);
  };
  next();
}

function streamShape(body, query) {
  const shape = { ...defaults };
  if (query !== undefined) {
    if (query.has('chunks')) shape.chunks = toCount(query.get('chunks'), shape.chunks);
    if (query.has('delay_ms')) shape.delayMs = toCount(query.get('delay_ms'), shape.delayMs);
    if (query.has('first_byte_ms')) shape.firstByteMs = toCount(query.get('first_byte_ms'), shape.firstByteMs);
    if (query.has('ts')) shape.ts = query.get('ts') === '1' || query.get('ts') === 'true';
  }
  const bench = body.bench;
  if (bench !== null && typeof bench === 'object') {
    if (bench.chunks !== undefined) shape.chunks = toCount(bench.chunks, shape.chunks);
    if (bench.delay_ms !== undefined) shape.delayMs = toCount(bench.delay_ms, shape.delayMs);
    if (bench.first_byte_ms !== undefined) shape.firstByteMs = toCount(bench.first_byte_ms, shape.firstByteMs);
    if (bench.ts !== undefined) shape.ts = bench.ts === true;
  }
  shape.chunks = Math.max(1, shape.chunks);
  return shape;
}

function toCount(value, fallback) {
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? Math.floor(number) : fallback;
}

function notFound(response) {
  sendError(response, 404, 'Invalid URL');
}

function sendError(response, status, message) {
  const text = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } });
  response.writeHead(status, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(text))]).end(text);
}

server.listen(Number(args.port), args.host, () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ listening: `http://${args.host}:${port}` })}\n`);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
