#!/usr/bin/env node
/**
 * Calibration only: the thinnest Fastify 5 + undici 7 pass-through (no auth, no billing, no limits, no
 * logs), run by the harness on the gateway's core. Issue 6 cites such a proxy at about 38 % (chat) and
 * 36 % (streams) of the fake upstream's throughput on a 2-core CI machine; measuring it on the same
 * machine in the same run tells what the governed gateway's ratio should be compared with.
 *
 *   node bench/baseline-proxy.mjs --upstream http://127.0.0.1:PORT [--port 0]
 * Prints `{"listening":"http://127.0.0.1:PORT"}` once ready.
 */
import Fastify from 'fastify';
import { Pool } from 'undici';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (args.upstream === undefined) throw new Error('--upstream URL is required');

const pool = new Pool(args.upstream, { connections: 4096, pipelining: 1, keepAliveTimeout: 30_000 });
const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

app.post('/v1/chat/completions', async (request, reply) => {
  const { statusCode, headers, body } = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-upstream-key' },
    body: request.body,
  });
  const contentType = String(headers['content-type'] ?? 'application/json');
  reply.code(statusCode).header('content-type', contentType);
  if (contentType.startsWith('text/event-stream')) return reply.send(body);
  return reply.send(Buffer.from(await body.arrayBuffer()));
});

const url = await app.listen({ port: Number(args.port), host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ listening: url })}\n`);
const stop = () => void app.close().then(() => pool.close()).finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
