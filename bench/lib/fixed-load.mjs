#!/usr/bin/env node
/**
 * Load process for bench/instructions.mjs: exactly `amount` POSTs over `connections` keep-alive connections
 * (a fixed number of requests, not a duration: under valgrind the gateway is ~50× slower). Prints one JSON
 * line { ok, failed, reasons }; a request counts as ok when it answered 200 and its body was read to the end;
 * `reasons` counts the failures by status code or socket error code.
 *
 * Input: one JSON argument { url, headers, body, connections, amount }.
 */
import http from 'node:http';

const spec = JSON.parse(process.argv[2]);
const target = new URL(spec.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
const body = Buffer.from(spec.body);
let started = 0;
let ok = 0;
let failed = 0;
const reasons = {};
const fail = (reason) => {
  failed += 1;
  reasons[reason] = (reasons[reason] ?? 0) + 1;
};

function one() {
  return new Promise((resolve) => {
    const request = http.request(
      { agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...spec.headers, 'content-length': body.length } },
      (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode === 200) ok += 1;
          else fail(`status ${response.statusCode}`);
          resolve();
        });
      },
    );
    request.on('error', (error) => {
      fail(error.code ?? error.message);
      resolve();
    });
    request.end(body);
  });
}

async function connection() {
  while (started < spec.amount) {
    started += 1;
    await one();
  }
}

await Promise.all(Array.from({ length: spec.connections }, connection));
process.stdout.write(`${JSON.stringify({ ok, failed, reasons })}\n`);
process.exit(0);
