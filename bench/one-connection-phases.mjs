#!/usr/bin/env node
/**
 * Where the one-connection latency goes (scenario 3's miss, BENCHMARKS.md session 13). The gateway runs
 * with bench/lib/phase-timer.cjs preloaded, which times each request's phases from outside its code:
 *
 *   to commit      request event → the reservation's write transaction begins (body, parse, auth, limits)
 *   commit         that transaction (BEGIN IMMEDIATE … COMMIT, with the previous request's settle in it)
 *   commit → sent  → undici has written the upstream request (building it, the pool, one loop turn)
 *   upstream       → the upstream's response headers are parsed (the fake, and two hops between the cores)
 *   post           → the response is handed to the kernel (body, usage, log row, response headers)
 *
 * In alternating rounds it measures the fake directly and through the gateway at one connection
 * (autocannon, as scenario 3), each after a warm-up whose samples are dropped. Prints per round and the
 * median over rounds, and for the slowest 1 % of requests which phase made them slow; nothing is written
 * to BENCHMARKS.md.
 *
 * `--wake-curve` measures the host instead of the gateway: the bare node:http pass-through
 * (bench/raw-proxy.mjs) kept busy for 0, 50, 100, 200 and 300 µs before each upstream call, against the
 * fake directly, round after round. Where waking an idle core is slow (a guest without halt polling), the
 * latency it adds grows by more than the busy time once the load core has idled past the host's polling
 * window: that is the price of every µs a gateway spends before its upstream call.
 *
 * `--stream-gap-ms N` times scenario 4 instead: one stream at a time, 20 chunks N ms apart (20 there), and
 * what is added is the time to first token; the last phase then ends when the gateway writes the stream's
 * status line and headers, with its first event. With gaps like scenario 4's every stream starts on cores
 * that idled for them (`--stream-gap-ms 0`: back to back, for comparison).
 *
 *   node bench/one-connection-phases.mjs [--rounds 5] [--duration 5] [--warmup 2] [--wake-curve] [--stream-gap-ms N] [--no-pin]
 * Needs `npm run build`. Sums of phase medians need not equal the median of the sums.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startGateway, writeGatewayConfig } from './lib/gateway.mjs';
import { runJsonChild, sleep, startProcess, stopProcess, tasksetAvailable, waitForLine } from './lib/processes.mjs';
import { chatBody, streamBody } from './lib/requests.mjs';
import { median, round } from './lib/stats.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');
const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    'wake-curve': { type: 'boolean', default: false },
    'stream-gap-ms': { type: 'string' },
    'no-pin': { type: 'boolean', default: false },
  },
});
const pinning = !args['no-pin'] && availableParallelism() >= 2 && tasksetAvailable();
const gatewayCore = pinning ? 0 : undefined;
const loadCore = pinning ? 1 : undefined;
const streamGapMs = args['stream-gap-ms'] === undefined ? undefined : Number(args['stream-gap-ms']);
/** What a round adds up: the latency of a request, or a stream's time to first token. */
const addedLabel = streamGapMs === undefined ? 'added' : 'added TTFT';
const phaseNames = ['to commit', 'commit', 'commit → sent', 'upstream', streamGapMs === undefined ? 'post' : 'to headers out', 'total (gateway)'];

const workDir = mkdtempSync(join(tmpdir(), 'relay-phases-'));
const phaseFile = join(workDir, 'phases.json');
const started = [];
try {
  const fake = startProcess('fake-upstream', process.execPath, [join(benchDir, 'fake-upstream.mjs'), '--port', '0'], { core: loadCore });
  started.push(fake);
  const fakeUrl = JSON.parse(await waitForLine(fake, (line) => line.startsWith('{"listening"'))).listening;
  const directTarget = { url: `${fakeUrl}/v1/chat/completions`, headers: { authorization: 'Bearer sk-bench-upstream-key', 'content-type': 'application/json' } };
  if (args['wake-curve']) await wakeCurve(fakeUrl, directTarget);
  else await phases(fakeUrl, directTarget);
} finally {
  for (const handle of started.reverse()) await stopProcess(handle);
  rmSync(workDir, { recursive: true, force: true });
}

function load(target, durationSec) {
  return runJsonChild('load', join(benchDir, 'lib', 'load.mjs'), { ...target, method: 'POST', body: JSON.stringify(chatBody), connections: 1, durationSec, warmupSec: 0 }, { core: loadCore });
}

/** The measured latency of one run, µs: p50 and p99 of the requests, or of the streams' first tokens. */
async function timedLoad(target, durationSec) {
  if (streamGapMs === undefined) {
    const result = await load(target, durationSec);
    return { p50: result.latencyMs.p50 * 1000, p99: result.latencyMs.p99 * 1000 };
  }
  const spec = { ...target, concurrency: 1, durationSec, warmupSec: 0, expectChunks: 20, stallMs: 1000, body: streamBody({ chunks: 20, delay_ms: streamGapMs }) };
  const result = await runJsonChild('streams', join(benchDir, 'lib', 'stream-client.mjs'), spec, { core: loadCore });
  return { p50: result.ttftMs.p50 * 1000, p99: result.ttftMs.p99 * 1000 };
}

async function wakeCurve(fakeUrl, direct) {
  const busyUs = [0, 50, 100, 200, 300];
  const added = new Map(busyUs.map((us) => [us, []]));
  for (let index = 0; index < Number(args.rounds); index += 1) {
    for (const us of busyUs) {
      const proxy = startProcess('raw-proxy', process.execPath, [join(benchDir, 'raw-proxy.mjs'), '--upstream', fakeUrl, '--busy-before-us', String(us)], { core: gatewayCore });
      started.push(proxy);
      const url = JSON.parse(await waitForLine(proxy, (line) => line.startsWith('{"listening"'))).listening;
      const target = { url: `${url}/v1/chat/completions`, headers: direct.headers };
      await load(target, Number(args.warmup));
      const d = await load(direct, Number(args.duration));
      const p = await load(target, Number(args.duration));
      added.get(us).push((p.latencyMs.p50 - d.latencyMs.p50) * 1000);
      await stopProcess(proxy);
    }
    console.log(`round ${index + 1}: ` + busyUs.map((us) => `busy ${us} µs → added p50 ${Math.round(added.get(us)[index])} µs`).join('; '));
  }
  console.log(`median of ${args.rounds} rounds: ` + busyUs.map((us) => `busy ${us} µs → +${round(median(added.get(us)), 0)} µs`).join('; '));
}

async function phases(fakeUrl, direct) {
  const { path: configPath, tokenKey } = writeGatewayConfig(workDir, fakeUrl);
  const gateway = await startGateway({
    repoRoot,
    directory: workDir,
    configPath,
    databaseUrl: `sqlite:${join(workDir, 'relay.db')}`,
    core: gatewayCore,
    nodeFlags: ['--require', join(benchDir, 'lib', 'phase-timer.cjs')],
    extraEnv: { PHASE_TIMER_OUT: phaseFile, ...(streamGapMs === undefined ? {} : { PHASE_TIMER_UNTIL: 'head' }) },
  });
  started.push(gateway.handle);
  const targets = { direct, gateway: { url: `${gateway.url}/v1/chat/completions`, headers: { authorization: `Bearer ${tokenKey}`, 'content-type': 'application/json' } } };
  /** The phases the gateway recorded since the last call (SIGUSR2 makes it write them and start over). */
  const collectPhases = async () => {
    rmSync(phaseFile, { force: true });
    process.kill(gateway.handle.pid, 'SIGUSR2');
    for (let waited = 0; waited < 5000; waited += 50) {
      try {
        return JSON.parse(readFileSync(phaseFile, 'utf8')).samples;
      } catch {
        await sleep(50);
      }
    }
    throw new Error('the gateway did not write its phases');
  };

  const rounds = [];
  for (let index = 0; index < Number(args.rounds); index += 1) {
    const direct = await timedLoad(targets.direct, Number(args.duration));
    await timedLoad(targets.gateway, Number(args.warmup));
    await collectPhases();
    const relayed = await timedLoad(targets.gateway, Number(args.duration));
    const samples = await collectPhases();
    const phases = phaseNames.map((_, column) => median(samples.map((sample) => sample[column])));
    // The tail: the slowest 1 % of requests by their time in the gateway, and which phase made them slow.
    const slowest = [...samples].sort((a, b) => b[5] - a[5]).slice(0, Math.max(1, Math.floor(samples.length / 100)));
    const tail = phaseNames.map((_, column) => median(slowest.map((sample) => sample[column])));
    const measured = { directP50Us: direct.p50, gatewayP50Us: relayed.p50, addedP99Us: relayed.p99 - direct.p99, phases, tail, requests: samples.length };
    rounds.push(measured);
    console.log(
      `round ${index + 1}: ${addedLabel} p50 ${Math.round(measured.gatewayP50Us - measured.directP50Us)} µs (direct ${Math.round(measured.directP50Us)}); ` +
        phaseNames.map((name, column) => `${name} ${Math.round(phases[column])}`).join(', ') +
        ` µs (${samples.length} ${streamGapMs === undefined ? 'requests' : 'streams'})\n` +
        `  ${addedLabel} p99 ${Math.round(measured.addedP99Us)} µs; the slowest 1 %: ` +
        phaseNames.map((name, column) => `${name} ${Math.round(tail[column])}`).join(', ') +
        ' µs',
    );
    await sleep(500);
  }
  console.log(
    `median of ${rounds.length} rounds: ${addedLabel} p50 ${round(median(rounds.map((r) => r.gatewayP50Us - r.directP50Us)), 0)} µs; ` +
      phaseNames.map((name, column) => `${name} ${round(median(rounds.map((r) => r.phases[column])), 0)}`).join(', ') +
      ` µs\n  ${addedLabel} p99 ${round(median(rounds.map((r) => r.addedP99Us)), 0)} µs; the slowest 1 %: ` +
      phaseNames.map((name, column) => `${name} ${round(median(rounds.map((r) => r.tail[column])), 0)}`).join(', ') +
      ' µs',
  );
}
