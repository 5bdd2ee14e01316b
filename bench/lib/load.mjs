#!/usr/bin/env node
/**
 * Load generator process: runs autocannon against one URL and prints one JSON line with the result.
 * Started by the harness in its own process (pinned to the load core when taskset is available).
 *
 * Input: one JSON argument { url, method, headers, body | requests, connections, durationSec, warmupSec }.
 * Latency is recorded per response from autocannon's 'response' event in float milliseconds (autocannon's
 * own histogram is whole milliseconds, too coarse for sub-millisecond differences); only 2xx count.
 */
import autocannon from 'autocannon';
import { summarize } from './stats.mjs';

const spec = JSON.parse(process.argv[2]);

function run(durationSec, record) {
  const latencies = [];
  let non2xx = 0;
  const options = {
    url: spec.url,
    method: spec.method ?? 'POST',
    headers: spec.headers ?? {},
    connections: spec.connections,
    pipelining: 1,
    duration: durationSec,
    timeout: spec.timeoutSec ?? 10,
    // autocannon prints nothing when used as a library without a tracker.
  };
  if (spec.requests !== undefined) options.requests = spec.requests;
  else options.body = spec.body;
  return new Promise((resolve, reject) => {
    const startedCpu = process.cpuUsage();
    const startedAt = process.hrtime.bigint();
    const instance = autocannon(options, (error, result) => {
      if (error) return reject(error);
      const elapsedSec = Number(process.hrtime.bigint() - startedAt) / 1e9;
      const cpu = process.cpuUsage(startedCpu);
      resolve({ result, latencies, non2xx, elapsedSec, loaderCpuPercent: ((cpu.user + cpu.system) / 1e6 / elapsedSec) * 100 });
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) {
        if (record) latencies.push(responseTime);
      } else non2xx++;
    });
  });
}

if (spec.warmupSec > 0) await run(spec.warmupSec, false);
const { result, latencies, non2xx, elapsedSec, loaderCpuPercent } = await run(spec.durationSec, true);
const latency = summarize(latencies);
const completed = latencies.length;
const output = {
  connections: spec.connections,
  durationSec: elapsedSec,
  completed,
  requestsPerSec: completed / result.duration,
  latencyMs: latency,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx ?? non2xx,
  totalErrors: result.errors + result.timeouts + (result.non2xx ?? non2xx),
  bytesPerSec: result.throughput?.average,
  loaderCpuPercent,
  statusCodeStats: result.statusCodeStats,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
process.exit(0);
