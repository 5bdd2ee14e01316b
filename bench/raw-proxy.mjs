#!/usr/bin/env node
/**
 * Calibration only: the thinnest pass-through Node can run — node:http server, node:http keep-alive client,
 * each upstream chunk written to the client as it arrives; no framework, no parsing, no governance. Run by
 * the harness on the gateway's core for scenarios 3 and 4: what it adds is the cost of a second process
 * and a second loopback hop on this machine, the floor under any gateway written in Node.
 *
 *   node bench/raw-proxy.mjs --upstream http://127.0.0.1:PORT [--port 0] [--busy-before-us N]
 * Prints `{"listening":"http://127.0.0.1:PORT"}` once ready. `--busy-before-us N` keeps the CPU busy for N µs
 * before each upstream call, standing in for a gateway's work there (bench/one-connection-phases.mjs --wake-curve).
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' }, 'busy-before-us': { type: 'string', default: '0' } } });
if (args.upstream === undefined) throw new Error('--upstream URL is required');
const upstream = new URL(args.upstream);
const busyBeforeNs = BigInt(Math.round(Number(args['busy-before-us']) * 1000));
const agent = new http.Agent({ keepAlive: true, maxSockets: 4096 });

const server = http.createServer((request, response) => {
  const parts = [];
  request.on('data', (part) => parts.push(part));
  request.on('end', () => {
    if (busyBeforeNs > 0n) for (const until = process.hrtime.bigint() + busyBeforeNs; process.hrtime.bigint() < until; );
    const body = Buffer.concat(parts);
    const outbound = http.request(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        path: request.url,
        method: request.method,
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-upstream-key', 'content-length': body.length },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
        answer.on('data', (chunk) => response.write(chunk));
        answer.on('end', () => response.end());
      },
    );
    outbound.on('error', () => response.destroy());
    outbound.end(body);
  });
});

server.listen(Number(args.port), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: `http://127.0.0.1:${server.address().port}` })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
