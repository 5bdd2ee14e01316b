#!/usr/bin/env node
/**
 * Streaming client process (scenarios 4 and 5): keeps `concurrency` SSE streams open in a closed loop
 * for `durationSec` (a finished stream is replaced at once) and measures each one with the monotonic
 * clock: time to first token (request sent → first data event), the gaps between data events, and —
 * when the fake stamps its chunks (`bench.ts`) — each chunk's delivery latency (fake wrote it → client
 * read it; CLOCK_MONOTONIC is shared by all processes of the machine) and how that latency drifts from
 * chunk to chunk. Prints one JSON line.
 *
 * Input: one JSON argument { url, headers, body, concurrency, durationSec, warmupSec, expectChunks,
 * stallMs, streamTimeoutSec, keepSamples }.
 */
import http from 'node:http';
import { slopePerStep, summarize } from './stats.mjs';

const spec = JSON.parse(process.argv[2]);
const target = new URL(spec.url);
const bodyBytes = Buffer.from(typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body));
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency });
const stampPattern = /"bench_t":"(\d+)"/;
const nowNs = () => process.hrtime.bigint();

/** One stream, resolved with its measurements (never rejects). */
function oneStream() {
  return new Promise((resolve) => {
    const record = { ok: false, error: undefined, chunks: 0, done: false, ttftMs: undefined, gapsMs: [], deliveryUs: [], totalMs: undefined, maxGapMs: 0 };
    const started = nowNs();
    let last;
    let pending = '';
    let settled = false;
    const finish = (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      record.totalMs = Number(nowNs() - started) / 1e6;
      record.error = error;
      record.ok = error === undefined && record.done && (spec.expectChunks === undefined || record.chunks === spec.expectChunks);
      if (error === undefined && !record.ok) record.error = `incomplete stream: ${record.chunks} chunks, done=${record.done}`;
      resolve(record);
    };
    const timer = setTimeout(() => {
      request.destroy(new Error(`stream not finished after ${spec.streamTimeoutSec} s`));
    }, (spec.streamTimeoutSec ?? 60) * 1000);
    const request = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...spec.headers, 'content-type': 'application/json', 'content-length': bodyBytes.length },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          response.on('end', () => finish(`HTTP ${response.statusCode}`));
          return;
        }
        response.setEncoding('utf8');
        response.on('data', (text) => {
          const arrived = nowNs();
          pending += text;
          let boundary;
          while ((boundary = pending.indexOf('\n\n')) !== -1) {
            const event = pending.slice(0, boundary);
            pending = pending.slice(boundary + 2);
            if (!event.startsWith('data: ')) continue;
            if (event === 'data: [DONE]') {
              record.done = true;
              continue;
            }
            if (event.includes('"choices":[]')) continue; // the usage-only chunk carries no token
            record.chunks++;
            if (last === undefined) record.ttftMs = Number(arrived - started) / 1e6;
            else {
              const gap = Number(arrived - last) / 1e6;
              record.gapsMs.push(gap);
              if (gap > record.maxGapMs) record.maxGapMs = gap;
            }
            last = arrived;
            const stamp = stampPattern.exec(event);
            if (stamp !== null) record.deliveryUs.push(Number(arrived - BigInt(stamp[1])) / 1e3);
          }
        });
        response.on('end', () => finish(undefined));
        response.on('error', (error) => finish(error.message));
      },
    );
    request.on('error', (error) => finish(error.message));
    request.end(bodyBytes);
  });
}

async function closedLoop(durationSec, keep) {
  const records = [];
  const deadline = Date.now() + durationSec * 1000;
  let started = 0;
  const lane = async () => {
    while (Date.now() < deadline) {
      started++;
      const record = await oneStream();
      if (keep) records.push(record);
    }
  };
  const begun = process.hrtime.bigint();
  await Promise.all(Array.from({ length: spec.concurrency }, lane));
  return { records, started, elapsedSec: Number(process.hrtime.bigint() - begun) / 1e9 };
}

if (spec.warmupSec > 0) await closedLoop(spec.warmupSec, false);
const { records, elapsedSec } = await closedLoop(spec.durationSec, true);

const ok = records.filter((record) => record.ok);
const failed = records.filter((record) => !record.ok);
const stallMs = spec.stallMs ?? 1000;
const errorKinds = {};
for (const record of failed) errorKinds[record.error] = (errorKinds[record.error] ?? 0) + 1;
const perStreamMeanGap = ok.filter((record) => record.gapsMs.length > 0).map((record) => record.gapsMs.reduce((a, b) => a + b, 0) / record.gapsMs.length);
/**
 * Per stream, how much later each chunk arrives than the one before beyond the fake's own spacing: the
 * slope of its delivery latencies over the chunk index. A client's gap between chunks k and k+1 is the
 * fake's gap plus (latency k+1 − latency k), so this is the added gap with the fake's timer jitter taken
 * out. The first chunk is left out: it also carries the response's start (TTFT measures that).
 */
const perStreamDrift = ok.filter((record) => record.deliveryUs.length >= 3).map((record) => slopePerStep(record.deliveryUs.slice(1)));
const output = {
  concurrency: spec.concurrency,
  durationSec: elapsedSec,
  streams: records.length,
  completed: ok.length,
  failed: failed.length,
  errorKinds,
  streamsPerSec: ok.length / elapsedSec,
  ttftMs: summarize(ok.map((record) => record.ttftMs)),
  gapMs: summarize(ok.flatMap((record) => record.gapsMs)),
  perStreamMeanGapMs: summarize(perStreamMeanGap),
  maxGapMs: summarize(ok.map((record) => record.maxGapMs)),
  totalMs: summarize(ok.map((record) => record.totalMs)),
  deliveryUs: summarize(ok.flatMap((record) => record.deliveryUs)),
  perStreamDriftUs: summarize(perStreamDrift),
  /** Streams that went silent for longer than stallMs after their first token, or never finished. */
  midStreamStalls: ok.filter((record) => record.maxGapMs > stallMs).length + failed.length,
  /** Streams whose first token took longer than stallMs beyond the configured first-byte latency. */
  slowFirstToken: ok.filter((record) => record.ttftMs > stallMs + (spec.firstByteMs ?? 0)).length,
  stallMs,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
process.exit(0);
