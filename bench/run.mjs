#!/usr/bin/env node
/**
 * Unified Relay benchmark harness (issue 6). `npm run bench` builds, then runs this file.
 *
 *   node bench/run.mjs [--quick] [--duration S] [--warmup S] [--soak-seconds S] [--connections N] [--rounds N]
 *                      [--only 1,2,3,4,5,6,7] [--pg | --mysql] [--redis] [--workers N] [--no-pin]
 *                      [--slow-streams N] [--profile] [--profile-streaming] [--no-report] [--out FILE]
 *
 * Processes: the fake upstream (bench/fake-upstream.mjs), the gateway (dist/cli/relay.js serve, governed
 * config, fresh SQLite file or PostgreSQL/Redis) and one load process per measurement (autocannon or the
 * streaming client). On a machine with ≥ 2 cores and taskset, the gateway runs on core 0 and the fake
 * and the load on core 1. Every scenario is measured against the fake directly in the same run, with the
 * same tool and settings. Results: bench/results/latest.json and the tables of BENCHMARKS.md.
 *
 * `--profile` runs the gateway under `node --cpu-prof` for scenario 1 only and writes the top self-time
 * functions into BENCHMARKS.md ("Profile") and bench/results/profile.json. `--profile-streaming` does the
 * same under scenario 2's load (20-chunk streams) and writes bench/results/profile-streaming.json only.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { cliSupportsWorkers, startGateway, writeGatewayConfig } from './lib/gateway.mjs';
import { chatBody, streamBody } from './lib/requests.mjs';
import { coreBusyPercent, coreTimes, cpuMeter, establishedTo, processTree, rssMb, samplePeak, waitForQuiet, runJsonChild, sampleRss, sleep, startProcess, stopProcess, tasksetAvailable, waitForLine } from './lib/processes.mjs';
import { gatewayFirstTokens } from './lib/gateway-log.mjs';
import { connectInspector } from './lib/inspector.mjs';
import { summarizeProfile } from './lib/profile-summary.mjs';
import { calibrateHost } from './lib/host-calibration.mjs';
import { evaluateTargets, updateBenchmarksMd } from './lib/report.mjs';
import { summariseSoakRss } from './lib/soak-rss.mjs';
import { round } from './lib/stats.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '..');
const loadScript = join(benchDir, 'lib', 'load.mjs');
const streamScript = join(benchDir, 'lib', 'stream-client.mjs');
const fakeScript = join(benchDir, 'fake-upstream.mjs');
const baselineScript = join(benchDir, 'baseline-proxy.mjs');
const rawProxyScript = join(benchDir, 'raw-proxy.mjs');

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    'soak-seconds': { type: 'string' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    pg: { type: 'boolean', default: false },
    mysql: { type: 'boolean', default: false },
    redis: { type: 'boolean', default: false },
    workers: { type: 'string' },
    'no-pin': { type: 'boolean', default: false },
    'slow-streams': { type: 'string', default: '1000' },
    rounds: { type: 'string' },
    profile: { type: 'boolean', default: false },
    'profile-streaming': { type: 'boolean', default: false },
    'no-report': { type: 'boolean', default: false },
    'no-baseline': { type: 'boolean', default: false },
    out: { type: 'string' },
    'node-flags': { type: 'string' },
  },
});

const quick = args.quick;
const settings = {
  quick,
  durationSec: Number(args.duration ?? (quick ? 3 : 10)),
  warmupSec: Number(args.warmup ?? (quick ? 1 : 2)),
  soakSec: Number(args['soak-seconds'] ?? (quick ? 30 : 120)),
  connections: Number(args.connections),
  slowStreams: Number(args['slow-streams']),
  /** Alternating direct/gateway rounds in scenarios 1–3 (the median round is reported). */
  rounds: Number(args.rounds ?? (quick ? 1 : 3)),
  workers: args.workers === undefined ? undefined : Number(args.workers),
  only: args.only === undefined ? undefined : new Set(args.only.split(',').map((s) => s.trim())),
  /** Extra node flags for the gateway process (experiments: heap sizing, GC); the default is none. */
  nodeFlags: args['node-flags'] === undefined ? [] : args['node-flags'].split(' ').filter((flag) => flag !== ''),
};
const wants = (scenario) => settings.only === undefined || settings.only.has(String(scenario));

// ---- Machine, pinning, storage ----
const cores = availableParallelism();
const pinning = !args['no-pin'] && cores >= 2 && tasksetAvailable();
const gatewayCore = pinning ? 0 : undefined;
const loadCore = pinning ? 1 : undefined;
const cpuModel = readCpuModel();

function readCpuModel() {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match !== null) return match[1].trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? 'unknown';
}

const storage = { database: 'sqlite', redis: false, databaseUrl: undefined, redisUrl: undefined };
if (args.pg) {
  storage.databaseUrl = process.env.RELAY_BENCH_POSTGRES_URL;
  if (storage.databaseUrl === undefined) fail('--pg needs RELAY_BENCH_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/relay_bench)');
  storage.database = 'postgres';
} else if (args.mysql) {
  storage.databaseUrl = process.env.RELAY_BENCH_MYSQL_URL;
  if (storage.databaseUrl === undefined) fail('--mysql needs RELAY_BENCH_MYSQL_URL (e.g. mysql://root@127.0.0.1:3306/relay_bench)');
  storage.database = 'mysql';
}
if (args.redis) {
  storage.redisUrl = process.env.RELAY_BENCH_REDIS_URL;
  if (storage.redisUrl === undefined) fail('--redis needs RELAY_BENCH_REDIS_URL (e.g. redis://127.0.0.1:6379)');
  storage.redis = true;
}
const storageLabel = `${storage.database}${storage.redis ? '+redis' : ''}`;

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

const log = (line) => process.stdout.write(`[bench] ${line}\n`);

// ---- Runs ----
const workDir = mkdtempSync(join(tmpdir(), 'relay-bench-'));
const started = [];
let fake;
let fakePort;
let gateway;

async function main() {
  log(`machine: ${cores} cores, ${cpuModel}, node ${process.version}; pinning: ${pinning ? `gateway → core ${gatewayCore}, fake + load → core ${loadCore}` : 'off'}`);
  const busy = loadavg()[0];
  if (busy > cores * 0.25) log(`warning: load average ${busy.toFixed(2)} on ${cores} cores — other processes compete for the cores and the numbers will be noisy; run on a quiet machine`);
  log(`storage: ${storageLabel}; per scenario ${settings.durationSec} s (+${settings.warmupSec} s warm-up), soak ${settings.soakSec} s`);

  const profiling = args.profile || args['profile-streaming'];
  const host = profiling ? undefined : await calibrateHost(benchDir, { gatewayCore, loadCore });
  if (host !== undefined) log(`idle cost: ${host.work.backToBackUs.p50} µs of JavaScript takes ${host.work.afterIdleUs.p50} µs after ${host.idleMs} ms idle (×${host.work.factor}); a loopback round trip between the cores ${host.roundTrip.backToBackUs.p50} µs, ${host.roundTrip.afterIdleUs.p50} µs after ${host.idleMs} ms idle`);

  fake = startProcess('fake-upstream', process.execPath, [fakeScript, '--port', '0'], { core: loadCore });
  started.push(fake);
  const fakeUrl = JSON.parse(await waitForLine(fake, (line) => line.startsWith('{"listening"'))).listening;
  fakePort = Number(new URL(fakeUrl).port);

  const databaseUrl = storage.databaseUrl ?? `sqlite:${join(workDir, 'relay.db')}`;
  const { path: configPath, tokenKey } = writeGatewayConfig(workDir, fakeUrl);
  const gatewayHeaders = { authorization: `Bearer ${tokenKey}`, 'content-type': 'application/json' };
  const directHeaders = { authorization: 'Bearer sk-bench-upstream-key', 'content-type': 'application/json' };

  if (profiling) return profileRun({ fakeUrl, databaseUrl, configPath, gatewayHeaders });

  // The inspector (loopback, no session attached until scenario 6) lets the soak read the V8 heap.
  gateway = await startGateway({ repoRoot, directory: workDir, configPath, databaseUrl, redisUrl: storage.redisUrl, core: gatewayCore, nodeFlags: [...settings.nodeFlags, '--inspect=127.0.0.1:0'] });
  started.push(gateway.handle);
  const direct = { name: 'direct', url: `${fakeUrl}/v1/chat/completions`, headers: directHeaders };
  const relay = { name: 'gateway', url: `${gateway.url}/v1/chat/completions`, headers: gatewayHeaders };
  log(`fake upstream ${fakeUrl} (pid ${fake.pid}), gateway ${gateway.url} (pid ${gateway.handle.pid})`);

  await sanityCheck(direct, relay);
  await sleep(3000);
  const results = {
    meta: {
      date: new Date().toISOString(),
      machine: { cores, cpuModel, memoryGb: round(totalmem() / 2 ** 30, 1), loadAverageAtStart: loadavg().map((v) => round(v, 2)), idleCost: host },
      node: process.version,
      autocannon: readAutocannonVersion(),
      commit: gitCommit(),
      pinning: { used: pinning, gatewayCore, loadCore, note: pinning ? 'taskset -c 0 gateway; taskset -c 1 fake upstream and load generator' : 'not pinned' },
      storage: storageLabel,
      settings: { ...settings, only: settings.only === undefined ? 'all' : [...settings.only] },
      command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    },
    scenarios: {},
  };
  const memory = { idleMb: round(rssMb(gateway.handle.pid), 1), underLoadPeakMb: undefined };
  const notePeak = (peak) => {
    if (peak !== undefined) memory.underLoadPeakMb = round(Math.max(memory.underLoadPeakMb ?? 0, peak), 1);
  };

  // 1. Non-streaming chat at N connections.
  if (wants(1)) {
    log(`scenario 1: non-streaming chat, ${settings.connections} connections`);
    const pair = await loadPair(direct, relay, { connections: settings.connections, body: JSON.stringify(chatBody) });
    results.scenarios.nonStreaming = pair;
    notePeak(pair.gateway.gatewayRssPeakMb);
    log(`  direct ${fmt(pair.direct.requestsPerSec)} req/s, gateway ${fmt(pair.gateway.requestsPerSec)} req/s (${pct(pair.ratio)}; rounds ${pair.roundRatios.map((r) => `${(r * 100).toFixed(1)} %`).join(', ')}), errors ${pair.gatewayErrorsAllRounds}`);
  }

  // 2. Streaming chat (20 chunks) at N connections.
  if (wants(2)) {
    log(`scenario 2: streaming chat (20 chunks), ${settings.connections} connections`);
    const pair = await loadPair(direct, relay, { connections: settings.connections, body: JSON.stringify(streamBody({ chunks: 20 })) });
    results.scenarios.streaming = pair;
    notePeak(pair.gateway.gatewayRssPeakMb);
    log(`  direct ${fmt(pair.direct.requestsPerSec)} streams/s, gateway ${fmt(pair.gateway.requestsPerSec)} streams/s (${pct(pair.ratio)}; rounds ${pair.roundRatios.map((r) => `${(r * 100).toFixed(1)} %`).join(', ')}), errors ${pair.gatewayErrorsAllRounds}`);
  }

  // 3. One connection: added latency.
  if (wants(3)) {
    log('scenario 3: one connection, non-streaming');
    const pair = await loadPair(direct, relay, { connections: 1, body: JSON.stringify(chatBody) });
    pair.addedMs = {
      p50: pair.gateway.latencyMs.p50 - pair.direct.latencyMs.p50,
      p90: pair.gateway.latencyMs.p90 - pair.direct.latencyMs.p90,
      p99: pair.gateway.latencyMs.p99 - pair.direct.latencyMs.p99,
      mean: pair.gateway.latencyMs.mean - pair.direct.latencyMs.mean,
    };
    results.scenarios.oneConnection = pair;
    log(`  added latency p50 ${fmt(pair.addedMs.p50 * 1000)} µs, p99 ${fmt(pair.addedMs.p99 * 1000)} µs`);
  }

  // 4. Streaming with 20 ms between chunks: added time to first token and per-chunk delay.
  if (wants(4)) {
    log('scenario 4: streaming, 20 chunks × 20 ms, one stream at a time');
    // One stream at a time: nothing else runs on the gateway's event loop, so what is measured is the relay's own cost.
    const pair = await streamPair(direct, relay, timedStreamSpec());
    const d = pair.direct;
    const g = pair.gateway;
    pair.added = {
      ttftMsP50: g.ttftMs.p50 - d.ttftMs.p50,
      ttftMsP99: g.ttftMs.p99 - d.ttftMs.p99,
      /** Mean inter-chunk gap through the gateway minus direct: what the gateway adds to each chunk's spacing. */
      perChunkGapUsMean: (g.gapMs.mean - d.gapMs.mean) * 1000,
      perChunkGapUsP50: (g.gapMs.p50 - d.gapMs.p50) * 1000,
      /** Median over streams of each stream's mean gap, gateway minus direct: robust to a few stalls. */
      perStreamGapUsMedian: (g.perStreamMeanGapMs.p50 - d.perStreamMeanGapMs.p50) * 1000,
      gapMsP99: g.gapMs.p99 - d.gapMs.p99,
      /** Chunk delivery latency (fake wrote → client read) through the gateway minus direct: the extra hop. */
      deliveryUsP50: g.deliveryUs.p50 - d.deliveryUs.p50,
      deliveryUsP99: g.deliveryUs.p99 - d.deliveryUs.p99,
      /** Median over streams of the delivery latency's drift per chunk, gateway minus direct (stream-client.mjs). */
      perChunkDriftUsMedian: g.perStreamDriftUs.p50 - d.perStreamDriftUs.p50,
    };
    results.scenarios.streamingTimed = pair;
    log(`  added TTFT p50 ${fmt(pair.added.ttftMsP50 * 1000)} µs; added per-chunk gap ${fmt(pair.added.perStreamGapUsMedian)} µs (median stream; mean over all gaps ${fmt(pair.added.perChunkGapUsMean)} µs; delivery drift per chunk ${fmt(pair.added.perChunkDriftUsMedian)} µs); extra hop per chunk p50 ${fmt(pair.added.deliveryUsP50)} µs`);
  }

  // Calibration: pass-throughs with no governance on the same core under the same loads (scenarios 1–4).
  const calibrated = ['nonStreaming', 'streaming', 'oneConnection', 'streamingTimed'].some((key) => results.scenarios[key] !== undefined);
  if (!args['no-baseline'] && calibrated) {
    log('calibration: bare Fastify + undici pass-through (no governance) on the gateway core');
    results.scenarios.baselineProxy = await baselineRun(baselineScript, fakeUrl, directHeaders, results);
    if (results.scenarios.oneConnection !== undefined || results.scenarios.streamingTimed !== undefined) {
      log('calibration: raw node:http pass-through (no framework, no governance) on the gateway core');
      results.scenarios.rawProxy = await baselineRun(rawProxyScript, fakeUrl, directHeaders, results);
    }
  }

  // 6. Memory: idle, under load, after load, soak — before scenario 5, whose 1,000 streams leave a heap that
  // V8 keeps for minutes: the soak must show what 50 connections need, not what scenario 5 left.
  if (wants(6)) {
    await sleep(5000);
    memory.afterLoadMb = round(rssMb(gateway.handle.pid), 1);
    log(`scenario 6: soak ${settings.soakSec} s, mixed chat + streams at ${settings.connections} connections`);
    const soak = await soakRun(relay);
    notePeak(soak.rssPeakMb);
    await sleep(5000);
    memory.afterSoakMb = round(rssMb(gateway.handle.pid), 1);
    memory.soak = soak;
    log(`  retained V8 heap after forced GC (s: MB): ${soak.retainedHeapMb.map(([t, mb]) => `${t}: ${mb}`).join(', ')}`);
    log(`  RSS idle ${memory.idleMb} MB, peak ${memory.underLoadPeakMb} MB, after load ${memory.afterLoadMb} MB; soak growth ${fmt(soak.growthMb)} MB (slope ${fmt(soak.slopeMbPerMin)} MB/min), after soak ${memory.afterSoakMb} MB`);
  }
  // 5. Many concurrent slow streams.
  if (wants(5)) {
    const n = settings.slowStreams;
    log(`scenario 5: ${n} concurrent slow streams (20 chunks × 50 ms)`);
    const spec = { concurrency: n, durationSec: Math.max(settings.durationSec, 5), warmupSec: 0, expectChunks: 20, stallMs: 1000, streamTimeoutSec: 120, body: streamBody({ chunks: 20, delay_ms: 50 }) };
    const since = Date.now();
    const pair = await streamPair(direct, relay, spec);
    // The gateway's own first tokens, from its request log: the client's include the load core's delays.
    pair.gateway.ownFirstToken = gatewayFirstTokens(databaseUrl, since, spec.stallMs);
    if (!args['no-baseline']) {
      // The same burst through the bare Fastify + undici pass-through: what any relay of that build pays here.
      log('  calibration: the same streams through the bare Fastify + undici pass-through on the gateway core');
      const { proxy, target } = await startPassThrough(baselineScript, fakeUrl, directHeaders);
      pair.baselineProxy = await streamRun(target, spec, proxy.pid);
      await stopProcess(proxy);
      const b = pair.baselineProxy;
      log(`  pass-through: ${b.completed}/${b.streams} complete, slow first token ${b.slowFirstToken} (TTFT p99 ${fmt(b.ttftMs.p99)} ms), CPU ${fmt(b.gatewayCpuMsPerStream * 1000)} µs per stream (gateway ${fmt(pair.gateway.gatewayCpuMsPerStream * 1000)} µs)`);
    }
    results.scenarios.slowStreams = pair;
    const own = pair.gateway.ownFirstToken;
    log(`  gateway: ${pair.gateway.completed}/${pair.gateway.streams} complete, stalls ${pair.gateway.midStreamStalls}, slow first token ${pair.gateway.slowFirstToken}${own === undefined ? '' : ` (by the gateway's own log: ${own.slow} of ${own.streams} over ${spec.stallMs} ms, p99 ${fmt(own.ms.p99)} ms)`}, RSS peak ${fmt(pair.gateway.gatewayRssPeakMb)} MB, upstream connections peak ${pair.gateway.upstreamConnectionsPeak}`);
  }

  memory.underLoadPeakMb ??= undefined;
  results.scenarios.memory = memory;

  // 7. Workers.
  if (wants(7)) results.scenarios.workers = await workersRun({ fakeUrl, configPath, gatewayHeaders });

  await stopProcess(gateway.handle);
  results.meta.loadAverageAtEnd = loadavg().map((v) => round(v, 2));
  results.meta.quietGate = quietLog;
  results.targets = evaluateTargets(results);
  const out = args.out ?? join(benchDir, 'results', storageLabel === 'sqlite' ? 'latest.json' : `latest-${storageLabel.replace('+', '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`results: ${out}`);
  if (!args['no-report'] && settings.only === undefined) {
    updateBenchmarksMd(join(repoRoot, 'BENCHMARKS.md'), results);
    log('BENCHMARKS.md updated');
  }
  for (const target of results.targets) log(`${target.pass === true ? 'PASS' : target.pass === false ? 'MISS' : 'N/A '} ${target.name}: ${target.measured}${target.pass === false ? ` — ${target.miss}` : ''}`);
}

/**
 * Before each measurement: wait (up to 60 s) for the machine to be quiet, and note it when it never got
 * quiet. Returns a finisher that reports how busy the gateway's core was with processes other than the
 * one under test ("foreign" CPU: other tenants, or the kernel) during the measurement.
 */
const quietLog = [];
async function measurementGate(label, watchCpuPercent) {
  const quiet = await waitForQuiet();
  quietLog.push({ label, ...quiet });
  if (!quiet.quiet) log(`  warning: machine not quiet before "${label}" (busiest core ${quiet.busiest} %) after ${quiet.waitedSec} s; measuring anyway`);
  const before = coreTimes();
  return (result) => {
    const after = coreTimes();
    if (gatewayCore === undefined) return;
    const busy = coreBusyPercent(before, after, String(gatewayCore));
    if (busy === undefined) return;
    // On the gateway's core only the process under test should run (nothing of ours for direct runs).
    result.foreignCpuOnGatewayCorePercent = round(Math.max(0, busy - (watchCpuPercent(result) ?? 0)), 1);
    result.quietBefore = quiet.quiet;
  };
}

/** One autocannon run (warm-up + measurement) against a target; `watch` = pid of the relay process to meter. */
async function runLoad(target, { connections, body }, watch) {
  const finishGate = await measurementGate(`${target.name} ${connections} connections`, (r) => r.gatewayCpuPercent);
  const pids = [fake.pid, ...(watch === undefined ? [] : [watch])];
  const cpu = cpuMeter(pids);
  const rss = watch === undefined ? undefined : sampleRss([watch], 250);
  const result = await runJsonChild(`load ${target.name}`, loadScript, {
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body,
    connections,
    durationSec: settings.durationSec,
    warmupSec: settings.warmupSec,
  }, { core: loadCore });
  const usage = cpu.stop();
  result.fakeCpuPercent = round(usage[fake.pid].percent, 1);
  if (watch !== undefined) {
    const samples = rss.stop()[watch];
    result.gatewayRssPeakMb = round(Math.max(...samples.map((s) => s.rssMb)), 1);
    // CPU over warm-up + measurement at a steady rate: CPU share / request rate = CPU time per request.
    result.gatewayCpuPercent = round(usage[watch].percent, 1);
    result.gatewayKernelSharePercent = round((usage[watch].systemShare ?? Number.NaN) * 100, 0);
    result.gatewayCpuUsPerRequest = round(((usage[watch].percent / 100) * 1e6) / result.requestsPerSec, 1);
  }
  finishGate(result);
  await sleep(1000);
  return result;
}

/**
 * A non-streaming or streaming autocannon run against the fake directly, then through the gateway, in
 * `settings.rounds` alternating rounds (direct, gateway, direct, gateway, …): the host's speed drifts
 * between runs, and alternating puts each gateway run next to a direct one. The round with the median
 * ratio is reported (its direct and gateway runs as measured); every round's ratio is kept.
 */
async function loadPair(direct, relay, load) {
  const rounds = [];
  for (let round = 0; round < settings.rounds; round += 1) {
    const d = await runLoad(direct, load);
    const g = await runLoad(relay, load, gateway.handle.pid);
    rounds.push({ direct: d, gateway: g, ratio: g.requestsPerSec / d.requestsPerSec });
  }
  const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor((rounds.length - 1) / 2)];
  return { ...median, roundRatios: rounds.map((round) => round.ratio), gatewayErrorsAllRounds: rounds.reduce((sum, round) => sum + round.gateway.totalErrors, 0) };
}

/**
 * Calibration: a pass-through with no governance (`bench/baseline-proxy.mjs`, Fastify + undici, for
 * scenarios 1–4; `bench/raw-proxy.mjs`, bare node:http, for 3 and 4) on the gateway's core under the same
 * loads as the gateway. What it adds over direct is the floor of any gateway built the same way on this machine.
 */
async function baselineRun(script, fakeUrl, directHeaders, results) {
  const raw = script === rawProxyScript;
  const { proxy, target } = await startPassThrough(script, fakeUrl, directHeaders);
  const { name } = target;
  const out = {};
  const loads = [
    ['nonStreaming', JSON.stringify(chatBody), settings.connections],
    ['streaming', JSON.stringify(streamBody({ chunks: 20 })), settings.connections],
    // One connection: the latency a bare proxy process adds is the floor of any gateway on this machine.
    ['oneConnection', JSON.stringify(chatBody), 1],
  ];
  for (const [key, body, connections] of loads) {
    const pair = results.scenarios[key];
    if (pair === undefined || (raw && key !== 'oneConnection')) continue;
    const r = await runLoad(target, { connections, body }, proxy.pid);
    out[key] = { requestsPerSec: r.requestsPerSec, latencyMs: r.latencyMs, totalErrors: r.totalErrors, cpuPercent: r.gatewayCpuPercent, cpuUsPerRequest: r.gatewayCpuUsPerRequest, rssPeakMb: r.gatewayRssPeakMb, ratio: r.requestsPerSec / pair.direct.requestsPerSec, gatewayShareOfBaseline: pair.gateway.requestsPerSec / r.requestsPerSec };
    if (key === 'oneConnection') {
      out[key].addedMs = { p50: r.latencyMs.p50 - pair.direct.latencyMs.p50, p99: r.latencyMs.p99 - pair.direct.latencyMs.p99 };
      log(`  ${name}, one connection: added p50 ${fmt(out[key].addedMs.p50 * 1000)} µs, p99 ${fmt(out[key].addedMs.p99 * 1000)} µs, CPU ${fmt(r.gatewayCpuUsPerRequest)} µs/request`);
      continue;
    }
    log(`  ${name} ${key}: ${fmt(r.requestsPerSec)}/s (${pct(out[key].ratio)}), CPU ${fmt(r.gatewayCpuUsPerRequest)} µs/request; governed gateway = ${(out[key].gatewayShareOfBaseline * 100).toFixed(1)} % of it`);
  }
  const timed = results.scenarios.streamingTimed;
  if (timed !== undefined) {
    const spec = { ...timedStreamSpec(), url: target.url, headers: target.headers };
    const r = await runJsonChild(`streams ${name}`, streamScript, spec, { core: loadCore });
    out.streamingTimed = {
      completed: r.completed,
      failed: r.failed,
      ttftMs: r.ttftMs,
      deliveryUs: r.deliveryUs,
      added: { ttftMsP50: r.ttftMs.p50 - timed.direct.ttftMs.p50, deliveryUsP50: r.deliveryUs.p50 - timed.direct.deliveryUs.p50, perStreamGapUsMedian: (r.perStreamMeanGapMs.p50 - timed.direct.perStreamMeanGapMs.p50) * 1000 },
    };
    log(`  ${name}, streaming 20 × 20 ms: added TTFT p50 ${fmt(out.streamingTimed.added.ttftMsP50 * 1000)} µs, extra hop per chunk p50 ${fmt(out.streamingTimed.added.deliveryUsP50)} µs`);
    await sleep(1000);
  }
  await stopProcess(proxy);
  return out;
}

/** A calibration pass-through on the gateway's core, and the target that reaches the fake through it. */
async function startPassThrough(script, fakeUrl, directHeaders) {
  const name = script === rawProxyScript ? 'raw proxy' : 'baseline proxy';
  const proxy = startProcess(name.replace(' ', '-'), process.execPath, [script, '--upstream', fakeUrl], { core: gatewayCore, cwd: repoRoot });
  started.push(proxy);
  const url = JSON.parse(await waitForLine(proxy, (line) => line.startsWith('{"listening"'))).listening;
  return { proxy, target: { name, url: `${url}/v1/chat/completions`, headers: directHeaders } };
}

/** Scenario 4's load: one stream at a time, 20 chunks 20 ms apart, each stamped by the fake. */
function timedStreamSpec() {
  return { concurrency: 1, durationSec: settings.durationSec, warmupSec: settings.warmupSec, expectChunks: 20, stallMs: 1000, body: streamBody({ chunks: 20, delay_ms: 20, ts: true }) };
}

/** The streaming client against the fake directly, then through the gateway. */
async function streamPair(direct, relay, spec) {
  const d = await streamRun(direct, spec);
  const g = await streamRun(relay, spec, gateway.handle.pid);
  return { direct: d, gateway: g, ratio: g.streamsPerSec / d.streamsPerSec };
}

/**
 * The streaming client against `target`. With `watchPid` (the relay process: the gateway or a
 * pass-through), that process's RSS peak, CPU and connections to the fake are measured too.
 */
async function streamRun(target, spec, watchPid) {
  const finishGate = await measurementGate(`${target.name} ${spec.concurrency} streams`, (r) => r.gatewayCpuPercent);
  const watched = watchPid === undefined ? [] : [watchPid];
  const rss = watchPid === undefined ? undefined : sampleRss(watched, 250);
  const cpu = cpuMeter(watched);
  const upstreamConnections = watchPid === undefined ? undefined : samplePeak(() => establishedTo(fakePort, watchPid), 250);
  const result = await runJsonChild(`streams ${target.name}`, streamScript, { ...spec, url: target.url, headers: target.headers }, { core: loadCore });
  if (watchPid !== undefined) {
    result.upstreamConnectionsPeak = upstreamConnections.stop();
    const samples = rss.stop()[watchPid];
    result.gatewayRssPeakMb = round(Math.max(...samples.map((s) => s.rssMb)), 1);
    const usage = cpu.stop()[watchPid];
    result.gatewayCpuPercent = round(usage.percent, 1);
    // Per stream only when every stream the relay served was counted (no warm-up streams).
    if (!(spec.warmupSec > 0)) result.gatewayCpuMsPerStream = round((usage.cpuSec * 1000) / result.streams, 3);
  }
  finishGate(result);
  await sleep(1000);
  return result;
}

/** When, as shares of the soak, the retained heap is read: inside the middle half, clear of both compared quarters. */
const retainedHeapShares = [0.375, 0.54];

/**
 * Mixed non-streaming + streaming load for the soak; RSS sampled every second. The retained V8 heap (after
 * a forced full GC, through the inspector) is read twice inside the middle half of the soak and after it:
 * growing RSS with a flat retained heap is the collector's laziness, a growing retained heap is a leak.
 */
async function soakRun(relay) {
  const inspector = await connectInspector(gateway.handle).catch((error) => {
    log(`  (no heap readings: ${error.message})`);
    return undefined;
  });
  const retainedHeap = [];
  // A forced full GC drops RSS by ~20 MB and restarts the old generation's sawtooth (~10 s per tooth at
  // 50 connections), so no reading may fall in or just before the quarters and trough windows compared
  // (summariseSoakRss: 10-37 % and 70-100 %). Session 9: a reading at 10 % lowered only the first
  // quarter's median and turned a flat sawtooth into "growth" (BENCHMARKS.md).
  const checkpoints = inspector === undefined ? [] : retainedHeapShares.map((share) =>
    setTimeout(() => {
      void inspector.heap({ gc: true }).then((heap) => retainedHeap.push([round(share * settings.soakSec, 1), round(heap.usedMb, 1)]), () => undefined);
    }, share * settings.soakSec * 1000),
  );
  const rss = sampleRss([gateway.handle.pid], 1000);
  const load = await runJsonChild('soak', loadScript, {
    url: relay.url,
    method: 'POST',
    headers: relay.headers,
    requests: [
      { method: 'POST', body: JSON.stringify(chatBody) },
      { method: 'POST', body: JSON.stringify(streamBody({ chunks: 20 })) },
    ],
    connections: settings.connections,
    durationSec: settings.soakSec,
    warmupSec: 0,
  }, { core: loadCore });
  const samples = rss.stop()[gateway.handle.pid];
  for (const timer of checkpoints) clearTimeout(timer);
  if (inspector !== undefined) {
    await sleep(2000);
    const heap = await inspector.heap({ gc: true }).catch(() => undefined);
    if (heap !== undefined) retainedHeap.push([round(settings.soakSec + 2, 1), round(heap.usedMb, 1)]);
    inspector.close();
  }
  return {
    seconds: settings.soakSec,
    requests: load.completed,
    requestsPerSec: round(load.requestsPerSec, 1),
    totalErrors: load.totalErrors,
    rssStartMb: round(samples[0]?.rssMb, 1),
    rssPeakMb: round(Math.max(...samples.map((s) => s.rssMb)), 1),
    ...summariseSoakRss(samples, settings.soakSec),
    /** [second of the soak, V8 heap MB after a forced full GC]; the last one 2 s after the load stopped. */
    retainedHeapMb: retainedHeap,
    retainedHeapGrowthMb: retainedHeap.length >= 2 ? round(retainedHeap.at(-1)[1] - retainedHeap[0][1], 1) : undefined,
    samples: samples.map((s) => [round(s.tSec, 1), round(s.rssMb, 1)]),
  };
}

/** Scenario 7: `relay serve --workers N` with 1 and N workers, when the CLI has it. */
async function workersRun({ fakeUrl, configPath, gatewayHeaders }) {
  const n = settings.workers ?? 2;
  if (!(await cliSupportsWorkers(repoRoot))) {
    log('scenario 7: `relay serve --workers N` is not implemented by the CLI: not measured');
    return { measured: false, reason: '`relay serve --workers N` is not implemented (the CLI usage does not list --workers)', workers: n };
  }
  log(`scenario 7: --workers 1 vs --workers ${n} (gateway not pinned; fake + load on core ${loadCore ?? 'any'})`);
  const perWorkers = {};
  for (const count of [1, n]) {
    const dir = mkdtempSync(join(workDir, `workers-${count}-`));
    const databaseUrl = storage.databaseUrl ?? `sqlite:${join(dir, 'relay.db')}`;
    const g = await startGateway({ repoRoot, directory: dir, configPath, databaseUrl, redisUrl: storage.redisUrl, serveArgs: ['--workers', String(count)], name: `gateway-w${count}` });
    started.push(g.handle);
    await sleep(2000);
    // The primary and its workers: CPU over warm-up + measurement at a steady rate, per request.
    const pids = processTree(g.handle.pid);
    const cpu = cpuMeter(pids);
    // Each worker gets as many warm-up requests as the single process: N workers warm up N times as long.
    const load = { ...chatLoad(g.url, gatewayHeaders), warmupSec: settings.warmupSec * count };
    const result = await runJsonChild(`load workers ${count}`, loadScript, load, { core: loadCore });
    const usage = cpu.stop();
    const cpuPercent = pids.reduce((sum, pid) => sum + (usage[pid].percent ?? 0), 0);
    const cpuUsPerRequest = round(((cpuPercent / 100) * 1e6) / result.requestsPerSec, 1);
    perWorkers[count] = { requestsPerSec: result.requestsPerSec, latencyMs: result.latencyMs, totalErrors: result.totalErrors, processes: pids.length, cpuPercent: round(cpuPercent, 1), cpuUsPerRequest };
    log(`  ${count} worker(s): ${fmt(result.requestsPerSec)} req/s, ${pids.length} processes at ${fmt(cpuPercent)} % CPU, ${fmt(cpuUsPerRequest)} µs of CPU per request`);
    await stopProcess(g.handle);
    await sleep(1000);
  }
  return { measured: true, workers: n, perWorkers, scaling: perWorkers[n].requestsPerSec / perWorkers[1].requestsPerSec, fakeUrl };
}

async function sanityCheck(direct, relay) {
  for (const target of [direct, relay]) {
    const plain = await fetch(target.url, { method: 'POST', headers: target.headers, body: JSON.stringify(chatBody) });
    const json = await plain.json().catch(() => undefined);
    if (plain.status !== 200 || json?.usage === undefined) throw new Error(`sanity: ${target.name} non-streaming answered ${plain.status}: ${JSON.stringify(json)}`);
    const stream = await fetch(target.url, { method: 'POST', headers: target.headers, body: JSON.stringify(streamBody({ chunks: 20 })) });
    const text = await stream.text();
    const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
    if (stream.status !== 200 || events.length !== 22 || events.at(-1) !== 'data: [DONE]') {
      throw new Error(`sanity: ${target.name} streaming answered ${stream.status} with ${events.length} events (expected 20 chunks + usage + [DONE])\n${text.slice(0, 500)}`);
    }
  }
  log('sanity check passed (non-streaming + streaming, direct and through the gateway)');
}

/** The load child's spec for scenario 1's requests against a gateway at `url`. */
function chatLoad(url, headers) {
  return { url: `${url}/v1/chat/completions`, method: 'POST', headers, body: JSON.stringify(chatBody), connections: settings.connections, durationSec: settings.durationSec, warmupSec: settings.warmupSec };
}

/** --profile: the gateway under --cpu-prof for scenario 1 only (scenario 2 with --profile-streaming); the top self-time functions. */
async function profileRun({ fakeUrl, databaseUrl, configPath, gatewayHeaders }) {
  const profileDir = join(workDir, 'cpu-profile');
  mkdirSync(profileDir, { recursive: true });
  const g = await startGateway({
    repoRoot,
    directory: workDir,
    configPath,
    databaseUrl,
    redisUrl: storage.redisUrl,
    core: gatewayCore,
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=250'],
    name: 'gateway-profiled',
  });
  started.push(g.handle);
  const streaming = args['profile-streaming'];
  log(`profiling the gateway (pid ${g.handle.pid}) under scenario ${streaming ? 2 : 1} for ${settings.durationSec} s`);
  const cpu = cpuMeter([g.handle.pid]);
  const loadStartUs = Number(process.hrtime.bigint() / 1000n);
  const spec = chatLoad(g.url, gatewayHeaders);
  if (streaming) spec.body = JSON.stringify(streamBody({ chunks: 20 }));
  const load = await runJsonChild('load profile', loadScript, spec, { core: loadCore });
  const loadEndUs = Number(process.hrtime.bigint() / 1000n);
  const usage = cpu.stop()[g.handle.pid];
  await stopProcess(g.handle);
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error('the gateway wrote no .cpuprofile (did it exit cleanly on SIGTERM?)');
  const suffix = (storageLabel === 'sqlite' ? '' : `-${storageLabel.replace('+', '-')}`) + (streaming ? '-streaming' : '');
  const kept = join(benchDir, 'results', `gateway-scenario${streaming ? 2 : 1}${suffix}.cpuprofile`);
  mkdirSync(dirname(kept), { recursive: true });
  renameSync(join(profileDir, file), kept);
  // Only the measured load window counts (warm-up, start-up and shutdown are left out).
  const measuredFromUs = loadStartUs + settings.warmupSec * 1e6 + 300_000;
  const cpuProfile = JSON.parse(readFileSync(kept, 'utf8'));
  if (cpuProfile.startTime > loadStartUs || cpuProfile.endTime < loadEndUs) log(`warning: profile clock [${cpuProfile.startTime}, ${cpuProfile.endTime}] does not span the load window [${loadStartUs}, ${loadEndUs}]`);
  const summary = summarizeProfile(cpuProfile, { repoRoot, windowUs: [measuredFromUs, loadEndUs] });
  const profile = {
    date: new Date().toISOString(),
    command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    storage: storageLabel,
    pinning,
    load: { requestsPerSec: load.requestsPerSec, totalErrors: load.totalErrors, latencyMs: load.latencyMs, gatewayCpuPercent: round(usage.percent, 1) },
    profileFile: `bench/results/gateway-scenario${streaming ? 2 : 1}${suffix}.cpuprofile`,
    windowUs: [measuredFromUs, loadEndUs],
    ...summary,
  };
  writeFileSync(join(benchDir, 'results', `profile${suffix}.json`), `${JSON.stringify(profile, null, 2)}\n`);
  log(`profile: ${round(load.requestsPerSec, 0)} req/s under the profiler (errors: ${load.errors} socket, ${load.timeouts} timeouts, ${load.non2xx} non-2xx); top self time:`);
  for (const row of summary.topFunctions.slice(0, 15)) log(`  ${row.selfPercent.toFixed(1).padStart(5)} %  ${row.function}  ${row.location}`);
  if (!args['no-report'] && !streaming) {
    updateBenchmarksMd(join(repoRoot, 'BENCHMARKS.md'), undefined, profile);
    log('BENCHMARKS.md profile section updated');
  }
}

function readAutocannonVersion() {
  try {
    return JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'autocannon', 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

function gitCommit() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: repoRoot, encoding: 'utf8' });
  const commit = head.stdout?.trim() || 'unknown';
  return dirty.stdout?.trim() ? `${commit} (+ uncommitted changes in src/)` : commit;
}

const fmt = (value) => (typeof value === 'number' && Number.isFinite(value) ? (Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(1)) : String(value));
const pct = (ratio) => `${(ratio * 100).toFixed(1)} % of direct`;

async function cleanup() {
  for (const handle of started.reverse()) await stopProcess(handle, 5000).catch(() => undefined);
  rmSync(workDir, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`bench: ${signal} received, stopping the gateway and the fake upstream\n`);
    void cleanup().then(() => process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1)));
  });
}
// A child that dies unexpectedly (killed from outside) is reported instead of hanging the run.
process.on('exit', (code) => {
  if (code !== 0) process.stderr.write(`bench: exiting with code ${code}\n`);
});
main().then(
  async () => {
    await cleanup();
    process.exit(0);
  },
  async (error) => {
    process.stderr.write(`bench failed: ${error?.stack ?? error}\n`);
    await cleanup();
    process.exit(1);
  },
);
