/** Targets of issue 6 and the generated parts of BENCHMARKS.md. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const num = (value, digits = 1) => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '—');
const int = (value) => (typeof value === 'number' && Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—');
const us = (ms) => (typeof ms === 'number' && Number.isFinite(ms) ? `${Math.round(ms * 1000).toLocaleString('en-US')} µs` : '—');
const msv = (ms) => (typeof ms === 'number' && Number.isFinite(ms) ? `${ms.toFixed(2)} ms` : '—');
const percent = (ratio) => (typeof ratio === 'number' && Number.isFinite(ratio) ? `${(ratio * 100).toFixed(1)} %` : '—');
const signedUs = (ms) => (typeof ms === 'number' && Number.isFinite(ms) ? `${ms >= 0 ? '+' : '−'}${us(Math.abs(ms))}` : '—');
const signed = (mb) => (typeof mb === 'number' && Number.isFinite(mb) ? `${mb >= 0 ? '+' : '−'}${num(Math.abs(mb))} MB` : '—');
const signedMs = (ms) => (typeof ms === 'number' && Number.isFinite(ms) ? `${ms >= 0 ? '+' : '−'}${msv(Math.abs(ms))}` : '—');
const verdict = (pass) => (pass === true ? '**pass**' : pass === false ? '**MISS**' : 'not measured');

/** The same burst through the bare pass-through, for the slow-streams target's note. */
function slowFloorNote(slow) {
  const b = slow.baselineProxy;
  if (b === undefined) return '';
  return `; the same streams through a bare Fastify + undici pass-through: ${b.slowFirstToken} first tokens > 1 s, ${b.failed} failed (TTFT p99 ${msv(b.ttftMs.p99)}; ${num(b.gatewayCpuMsPerStream * 1000, 0)} µs of CPU per stream, the gateway ${num(slow.gateway.gatewayCpuMsPerStream * 1000, 0)} µs)`;
}

/** Each target: { name, target, measured, pass (true/false/undefined), miss (by how much) }. */
export function evaluateTargets(results) {
  const s = results.scenarios;
  const targets = [];
  const throughput = (label, pair, unit) => {
    if (pair === undefined) return targets.push({ name: `${label} throughput`, target: '≥ 25 % of direct, 0 errors', measured: 'not run', pass: undefined });
    const errors = pair.gatewayErrorsAllRounds ?? pair.gateway.totalErrors;
    const pass = pair.ratio >= 0.25 && errors === 0;
    const needed = 0.25 * pair.direct.requestsPerSec;
    const misses = [];
    if (pair.ratio < 0.25) misses.push(`${percent(0.25 - pair.ratio)} points short: needs ${int(needed)} ${unit}, got ${int(pair.gateway.requestsPerSec)} (×${num(needed / pair.gateway.requestsPerSec, 2)} to go)`);
    if (errors !== 0) misses.push(`${errors} errors`);
    targets.push({ name: `${label} throughput`, target: '≥ 25 % of direct, 0 errors', measured: `${percent(pair.ratio)} (${int(pair.gateway.requestsPerSec)} vs ${int(pair.direct.requestsPerSec)} ${unit}), ${errors} errors`, pass, miss: misses.join('; ') });
  };
  throughput('Non-streaming', s.nonStreaming, 'req/s');
  throughput('Streaming', s.streaming, 'streams/s');

  const one = s.oneConnection;
  targets.push(
    one === undefined
      ? { name: 'Added latency p50 (1 connection)', target: '≤ 0.15 ms', measured: 'not run', pass: undefined }
      : { name: 'Added latency p50 (1 connection)', target: '≤ 0.15 ms', measured: us(one.addedMs.p50), pass: one.addedMs.p50 <= 0.15, miss: `${us(one.addedMs.p50 - 0.15)} over (×${num(one.addedMs.p50 / 0.15, 1)})${floorNote(s, 'oneConnection', (c) => c.addedMs.p50)}` },
    one === undefined
      ? { name: 'Added latency p99 (1 connection)', target: '≤ 1 ms', measured: 'not run', pass: undefined }
      : { name: 'Added latency p99 (1 connection)', target: '≤ 1 ms', measured: us(one.addedMs.p99), pass: one.addedMs.p99 <= 1, miss: `${us(one.addedMs.p99 - 1)} over${floorNote(s, 'oneConnection', (c) => c.addedMs.p99)}` },
  );

  const timed = s.streamingTimed;
  targets.push(
    timed === undefined
      ? { name: 'Added time to first token', target: '≤ 0.5 ms', measured: 'not run', pass: undefined }
      : { name: 'Added time to first token (p50)', target: '≤ 0.5 ms', measured: us(timed.added.ttftMsP50), pass: timed.added.ttftMsP50 <= 0.5, miss: `${us(timed.added.ttftMsP50 - 0.5)} over${floorNote(s, 'streamingTimed', (c) => c.added.ttftMsP50)}${idleNote(results.meta.machine.idleCost)}` },
    timed === undefined
      ? { name: 'Per-chunk overhead', target: '≤ 10 µs', measured: 'not run', pass: undefined }
      : perChunkTarget(timed.added),
  );

  const slow = s.slowStreams;
  if (slow === undefined) targets.push({ name: 'Concurrent slow streams: all complete, none stalls', target: 'all complete, 0 stalls', measured: 'not run', pass: undefined });
  else {
    const g = slow.gateway;
    const pass = g.failed === 0 && g.midStreamStalls === 0 && g.slowFirstToken === 0;
    targets.push({
      name: `${slow.gateway.concurrency} concurrent slow streams: all complete, none stalls`,
      target: 'all complete, 0 stalls (no gap or first token > 1 s)',
      measured: `${int(g.completed)}/${int(g.streams)} complete, ${g.midStreamStalls} mid-stream stalls, ${g.slowFirstToken} first tokens > 1 s (TTFT p99 ${msv(g.ttftMs.p99)}), RSS ${num(g.gatewayRssPeakMb)} MB`,
      pass,
      miss: `${g.failed} failed, ${g.midStreamStalls} stalled, ${g.slowFirstToken} waited > 1 s for the first token${g.ownFirstToken === undefined ? '' : ` (${g.ownFirstToken.slow} of them by the gateway's own log, which starts at its route handler: a connection's wait in the accept queue before it is not in it)`}${slowFloorNote(slow)}`,
    });
  }

  const memory = s.memory;
  if (memory?.underLoadPeakMb === undefined) targets.push({ name: 'RSS under 50 connections', target: '≤ 120 MB', measured: 'not run', pass: undefined });
  else targets.push({ name: 'RSS under 50 connections (peak)', target: '≤ 120 MB', measured: `${num(memory.underLoadPeakMb)} MB`, pass: memory.underLoadPeakMb <= 120, miss: `${num(memory.underLoadPeakMb - 120)} MB over` });
  if (memory?.soak === undefined) targets.push({ name: 'RSS flat over the soak', target: 'no growth', measured: 'not run', pass: undefined });
  else {
    const soak = memory.soak;
    const allowance = Math.max(5, soak.firstQuarterMedianMb * 0.05);
    // The bottoms of the RSS sawtooth early and late (bench/lib/soak-rss.mjs); a results file from before
    // them has only the quarters' medians.
    const bottoms = soak.bottoms;
    const growth = bottoms?.growthMb ?? soak.growthMb;
    const quarters = `quarters' medians ${num(soak.firstQuarterMedianMb)} → ${num(soak.lastQuarterMedianMb)} MB (${signed(soak.growthMb)})`;
    targets.push({
      name: `RSS flat over a ${soak.seconds} s soak`,
      target: `growth ≤ ${num(allowance)} MB (5 %, at least 5 MB) of the sawtooth's bottoms, before 37 % → after 70 % of the soak`,
      measured: `${bottoms === undefined ? '' : `bottoms ${num(bottoms.earlyMb)} → ${num(bottoms.lateMb)} MB (${signed(bottoms.growthMb)}; ${bottomsLabel(bottoms)}); `}${quarters}; slope ${num(soak.slopeMbPerMin, 2)} MB/min; ${soak.totalErrors} errors`,
      pass: growth <= allowance && soak.totalErrors === 0,
      miss: `grew ${num(growth)} MB${bottoms === undefined ? '' : ` between the sawtooth's bottoms`}${soak.totalErrors === 0 ? '' : `, ${soak.totalErrors} errors`}${retainedHeapNote(soak.retainedHeapMb)}`,
    });
  }

  const workers = s.workers;
  if (workers === undefined || !workers.measured) targets.push({ name: 'Two workers vs one', target: '≥ 1.7×', measured: workers === undefined ? 'not run' : `not measured: ${workers.reason}`, pass: undefined });
  else {
    // The target assumes two cores free for the gateway; the load generator and the fake need one too.
    const freeCores = results.meta.machine.cores - (results.meta.pinning.used ? 1 : 0);
    const comparable = freeCores >= workers.workers;
    targets.push({
      name: `${workers.workers} workers vs one`,
      target: '≥ 1.7× (two cores free)',
      measured: `×${num(workers.scaling, 2)} (${int(workers.perWorkers[1].requestsPerSec)} → ${int(workers.perWorkers[workers.workers].requestsPerSec)} req/s)${comparable ? '' : `; only ${freeCores} core(s) free for the gateway here — the fake and the load generator hold the other`}`,
      pass: comparable ? workers.scaling >= 1.7 : undefined,
      label: comparable ? undefined : 'not comparable on this machine',
      miss: `×${num(1.7 - workers.scaling, 2)} short`,
    });
  }
  return targets;
}

/**
 * Per-chunk overhead: what the gateway adds to the spacing of chunks. Measured as the drift of each
 * chunk's delivery latency (the fake's own stamp → the client), which takes the fake's timer jitter out of
 * the comparison; runs recorded before the drift existed show the added gap between chunks instead.
 */
function perChunkTarget(added) {
  const gaps = `${num(added.perStreamGapUsMedian, 1)} µs (mean over all gaps ${num(added.perChunkGapUsMean, 1)} µs, p99 gap ${signedUs(added.gapMsP99)})`;
  if (added.perChunkDriftUsMedian === undefined) {
    return { name: 'Per-chunk overhead (added gap between chunks, median stream)', target: '≤ 10 µs', measured: gaps, pass: added.perStreamGapUsMedian <= 10, miss: `${num(added.perStreamGapUsMedian - 10, 1)} µs over` };
  }
  return {
    name: 'Per-chunk overhead (added drift of delivery latency per chunk, median stream)',
    target: '≤ 10 µs',
    measured: `${num(added.perChunkDriftUsMedian, 1)} µs; the added gap between chunks as the client sees it, with the fake's timer jitter in it: ${gaps}`,
    pass: added.perChunkDriftUsMedian <= 10,
    miss: `${num(added.perChunkDriftUsMedian - 10, 1)} µs over`,
  };
}

/** What the pass-throughs without governance added in the same run: the floor under the gateway's number. */
function floorNote(s, key, added) {
  const floors = [
    ['raw node:http pass-through', s.rawProxy?.[key]],
    ['Fastify + undici pass-through', s.baselineProxy?.[key]],
  ].filter(([, calibration]) => calibration !== undefined);
  if (floors.length === 0) return '';
  return `; on this machine a ${floors.map(([label, calibration]) => `${label} adds ${us(added(calibration))}`).join(', a ')}`;
}

/** Scenario 4's chunks are 20 ms apart: what that idleness costs here, when the harness measured it. */
function idleNote(idle) {
  if (idle === undefined) return '';
  return `; after ${idle.idleMs} ms idle, code here runs ×${num(idle.work.factor)} slower than back to back and a round trip between the cores takes ${num(idle.roundTrip.afterIdleUs.p50, 0)} µs`;
}

function renderResults(results) {
  const { meta, scenarios: s } = results;
  const lines = [];
  const push = (...more) => lines.push(...more);
  push(`### Run: ${meta.date.slice(0, 10)}, storage ${meta.storage}`, '');
  push(`- Machine: ${meta.machine.cores} cores, ${meta.machine.cpuModel}, ${meta.machine.memoryGb} GB RAM; Node ${meta.node}; autocannon ${meta.autocannon}`);
  const idle = meta.machine.idleCost;
  if (idle !== undefined) {
    push(`- Idle cost (\`bench/lib/host-probe.mjs\`, before the gateway starts): ${num(idle.work.backToBackUs.p50)} µs of JavaScript on the gateway's core takes ${num(idle.work.afterIdleUs.p50)} µs after ${idle.idleMs} ms idle (×${num(idle.work.factor)}); a loopback TCP round trip from the load core to the gateway's core takes ${num(idle.roundTrip.backToBackUs.p50)} µs back to back, ${num(idle.roundTrip.afterIdleUs.p50)} µs after ${idle.idleMs} ms idle (p50s)`);
  }
  push(`- Pinning: ${meta.pinning.used ? `yes — ${meta.pinning.note}` : 'no (taskset unavailable, fewer than 2 cores, or --no-pin)'}`);
  push(`- Gateway build: commit ${meta.commit}; config: governed (real token and user balance, price, rate limits on at every level but far above the load, request log on), LOG_LEVEL=warn`);
  push(`- Settings: ${meta.settings.durationSec} s per measurement after ${meta.settings.warmupSec} s warm-up, soak ${meta.settings.soakSec} s${meta.settings.quick ? ' (--quick)' : ''}`);
  push(`- Load average at start / end: ${meta.machine.loadAverageAtStart.join(' ')} / ${(meta.loadAverageAtEnd ?? []).join(' ')}`);
  if (meta.quietGate !== undefined) {
    const noisy = meta.quietGate.filter((q) => !q.quiet);
    const waited = meta.quietGate.reduce((sum, q) => sum + q.waitedSec, 0);
    push(`- Quiet gate: before each of ${meta.quietGate.length} measurements the harness waited for every core to be ≤ 12 % busy (${waited} s waited in total)${noisy.length === 0 ? '; all started quiet' : `; **${noisy.length} started on a busy machine** (${noisy.map((q) => q.label).join(', ')})`}`);
  }
  push(`- Command: \`${meta.command}\``, '');

  push('#### Targets', '', '| Target | Goal | Measured | Result |', '|---|---|---|---|');
  for (const t of results.targets) push(`| ${t.name} | ${t.target} | ${t.measured} | ${t.label ?? verdict(t.pass)}${t.pass === false && t.miss ? ` — ${t.miss}` : ''} |`);
  push('');

  const loadTable = (title, pair, unit, baseline) => {
    if (pair === undefined) return;
    const d = pair.direct;
    const g = pair.gateway;
    push(`#### ${title}`, '', '| | direct (fake) | gateway | gateway / direct |', '|---|---|---|---|');
    push(`| ${unit} | ${int(d.requestsPerSec)} | ${int(g.requestsPerSec)} | ${percent(pair.ratio)} |`);
    if (pair.roundRatios !== undefined && pair.roundRatios.length > 1) push(`| gateway / direct in each of ${pair.roundRatios.length} alternating rounds (the median round is shown) | | | ${pair.roundRatios.map(percent).join(', ')} |`);
    push(`| latency p50 | ${msv(d.latencyMs.p50)} | ${msv(g.latencyMs.p50)} | ${signedMs(g.latencyMs.p50 - d.latencyMs.p50)} |`);
    push(`| latency p99 | ${msv(d.latencyMs.p99)} | ${msv(g.latencyMs.p99)} | ${signedMs(g.latencyMs.p99 - d.latencyMs.p99)} |`);
    push(`| errors (socket + timeouts + non-2xx) | ${d.totalErrors} | ${g.totalErrors} | |`);
    push(`| completed in ${num(g.durationSec, 0)} s | ${int(d.completed)} | ${int(g.completed)} | |`);
    if (g.gatewayCpuPercent !== undefined) push(`| gateway CPU (% of one core) / per request | | ${num(g.gatewayCpuPercent, 0)} % / ${int(g.gatewayCpuUsPerRequest)} µs${g.gatewayKernelSharePercent === undefined ? '' : ` (${g.gatewayKernelSharePercent} % in the kernel)`} | |`);
    push(`| fake upstream CPU | ${num(d.fakeCpuPercent, 0)} % | ${num(g.fakeCpuPercent, 0)} % | |`);
    push(`| load generator CPU | ${num(d.loaderCpuPercent, 0)} % | ${num(g.loaderCpuPercent, 0)} % | |`);
    if (g.gatewayRssPeakMb !== undefined) push(`| gateway RSS peak | | ${num(g.gatewayRssPeakMb)} MB | |`);
    if (g.foreignCpuOnGatewayCorePercent !== undefined) push(`| busy time on the gateway's core not spent by the process under test (neighbours, loopback softirq) | ${num(d.foreignCpuOnGatewayCorePercent, 0)} % | ${num(g.foreignCpuOnGatewayCorePercent, 0)} % | |`);
    push('');
    if (baseline !== undefined) {
      push(`Calibration, same load on the same core: a bare Fastify + undici pass-through (\`bench/baseline-proxy.mjs\`, no governance) does **${int(baseline.requestsPerSec)} ${unit} = ${percent(baseline.ratio)} of direct** (p50 ${msv(baseline.latencyMs.p50)}, p99 ${msv(baseline.latencyMs.p99)}, ${baseline.totalErrors} errors, ${int(baseline.cpuUsPerRequest)} µs CPU per request, RSS ${num(baseline.rssPeakMb)} MB); the governed gateway does ${percent(baseline.gatewayShareOfBaseline)} of that.`, '');
    }
  };
  loadTable(`1. Non-streaming chat, ${s.nonStreaming?.gateway.connections ?? ''} connections`, s.nonStreaming, 'requests/s', s.baselineProxy?.nonStreaming);
  loadTable(`2. Streaming chat (20 chunks), ${s.streaming?.gateway.connections ?? ''} connections — latency to the last byte`, s.streaming, 'streams/s', s.baselineProxy?.streaming);
  if (s.streaming !== undefined && s.nonStreaming !== undefined) {
    const perChunk = (s.streaming.gateway.gatewayCpuUsPerRequest - s.nonStreaming.gateway.gatewayCpuUsPerRequest) / 20;
    push(`Gateway CPU per streamed chunk, estimated as (CPU per stream − CPU per non-streaming request) / 20: **${num(perChunk, 1)} µs**.`, '');
  }

  const one = s.oneConnection;
  if (one !== undefined) {
    push('#### 3. One connection, non-streaming — added latency', '', '| | direct (fake) | gateway | added by the gateway |', '|---|---|---|---|');
    push(`| requests/s | ${int(one.direct.requestsPerSec)} | ${int(one.gateway.requestsPerSec)} | |`);
    for (const p of ['p50', 'p90', 'p99', 'mean']) push(`| latency ${p} | ${us(one.direct.latencyMs[p])} | ${us(one.gateway.latencyMs[p])} | **${us(one.addedMs[p])}** |`);
    push(`| gateway CPU per request | | ${num(one.gateway.gatewayCpuUsPerRequest, 0)} µs | |`);
    push('');
    const bare = s.baselineProxy?.oneConnection;
    if (bare !== undefined) {
      push(`Calibration, same load on the same core: the bare Fastify + undici pass-through adds **${us(bare.addedMs.p50)} at p50 and ${us(bare.addedMs.p99)} at p99** (${num(bare.cpuUsPerRequest, 0)} µs CPU per request) — the cost of a second process and a second loopback hop, before any governance.`, '');
    }
    const raw = s.rawProxy?.oneConnection;
    if (raw !== undefined) {
      push(`A raw node:http pass-through (\`bench/raw-proxy.mjs\`: no framework, no parsing) adds **${us(raw.addedMs.p50)} at p50 and ${us(raw.addedMs.p99)} at p99** (${num(raw.cpuUsPerRequest, 0)} µs CPU per request).`, '');
    }
  }

  const timed = s.streamingTimed;
  if (timed !== undefined) {
    const d = timed.direct;
    const g = timed.gateway;
    push(`#### 4. Streaming, 20 chunks × 20 ms, ${g.concurrency === 1 ? "one stream at a time" : `${g.concurrency} concurrent streams`} (custom client)`, '', '| | direct (fake) | gateway | added |', '|---|---|---|---|');
    push(`| streams measured (complete / failed) | ${d.completed} / ${d.failed} | ${g.completed} / ${g.failed} | |`);
    push(`| time to first token p50 | ${us(d.ttftMs.p50)} | ${us(g.ttftMs.p50)} | **${us(timed.added.ttftMsP50)}** |`);
    push(`| time to first token p99 | ${us(d.ttftMs.p99)} | ${us(g.ttftMs.p99)} | ${us(timed.added.ttftMsP99)} |`);
    if (timed.added.perChunkDriftUsMedian !== undefined) {
      push(`| each chunk's delivery later than the one before (drift of delivery latency per chunk, median stream; the fake's spacing taken out) | ${num(d.perStreamDriftUs.p50, 1)} µs | ${num(g.perStreamDriftUs.p50, 1)} µs | **${num(timed.added.perChunkDriftUsMedian, 1)} µs** |`);
    }
    push(`| gap between chunks, median stream's mean gap | ${us(d.perStreamMeanGapMs.p50)} | ${us(g.perStreamMeanGapMs.p50)} | **${num(timed.added.perStreamGapUsMedian, 1)} µs** |`);
    push(`| gap between chunks, mean over all gaps | ${us(d.gapMs.mean)} | ${us(g.gapMs.mean)} | ${num(timed.added.perChunkGapUsMean, 1)} µs |`);
    push(`| gap between chunks, p50 / p99 | ${us(d.gapMs.p50)} / ${us(d.gapMs.p99)} | ${us(g.gapMs.p50)} / ${us(g.gapMs.p99)} | |`);
    push(`| chunk delivery latency (fake wrote → client read) p50 | ${num(d.deliveryUs.p50, 0)} µs | ${num(g.deliveryUs.p50, 0)} µs | ${num(timed.added.deliveryUsP50, 0)} µs |`);
    push(`| chunk delivery latency p99 | ${num(d.deliveryUs.p99, 0)} µs | ${num(g.deliveryUs.p99, 0)} µs | ${num(timed.added.deliveryUsP99, 0)} µs |`);
    for (const [label, calibration] of [['bare Fastify + undici pass-through', s.baselineProxy?.streamingTimed], ['raw node:http pass-through', s.rawProxy?.streamingTimed]]) {
      if (calibration === undefined) continue;
      push(`| calibration: ${label}, TTFT p50 / chunk delivery p50 | | ${us(calibration.ttftMs.p50)} / ${num(calibration.deliveryUs.p50, 0)} µs | ${us(calibration.added.ttftMsP50)} / ${num(calibration.added.deliveryUsP50, 0)} µs |`);
    }
    const gapRole = timed.added.perChunkDriftUsMedian === undefined
      ? 'The added gap is what the gateway adds to the spacing of chunks (the target; the median stream is robust to a few event-loop stalls, which show in the mean and the p99 gap instead)'
      : "The drift is what the gateway adds to the spacing of chunks, with the fake's timer jitter taken out (the target: each chunk's delivery latency against its index, least-squares slope over chunks 2–20, median stream); the gaps as the client sees them measure the same thing with that jitter in, and show event-loop stalls in their mean and p99";
    push('', `${gapRole}; the added delivery latency is the extra loopback hop every chunk takes through a second process, paid once per chunk but not accumulated.`, '');
  }

  const slow = s.slowStreams;
  if (slow !== undefined) {
    const d = slow.direct;
    const g = slow.gateway;
    // The calibration column: the same streams through the bare Fastify + undici pass-through, when it ran.
    const b = slow.baselineProxy;
    const row = (label, direct, relay, passThrough = relay) => push(`| ${label} | ${direct} | ${relay(g)} |${b === undefined ? '' : ` ${passThrough(b)} |`}`);
    push(`#### 5. ${g.concurrency} concurrent slow streams (20 chunks × 50 ms, closed loop for ${num(g.durationSec, 0)} s)`, '');
    push(b === undefined ? '| | direct (fake) | gateway |' : '| | direct (fake) | gateway | bare Fastify + undici pass-through |', b === undefined ? '|---|---|---|' : '|---|---|---|---|');
    row('streams complete / started', `${int(d.completed)} / ${int(d.streams)}`, (x) => `${int(x.completed)} / ${int(x.streams)}`);
    row('failed (errors, incomplete)', d.failed, (x) => `${x.failed}${Object.keys(x.errorKinds).length > 0 ? ` (${Object.entries(x.errorKinds).map(([k, v]) => `${k}: ${v}`).join('; ')})` : ''}`);
    row(`mid-stream stalls (gap > ${g.stallMs} ms)`, d.midStreamStalls, (x) => x.midStreamStalls);
    row(`first token later than ${g.stallMs} ms`, d.slowFirstToken, (x) => x.slowFirstToken);
    row('time to first token p50 / p99 / max', `${msv(d.ttftMs.p50)} / ${msv(d.ttftMs.p99)} / ${msv(d.ttftMs.max)}`, (x) => `${msv(x.ttftMs.p50)} / ${msv(x.ttftMs.p99)} / ${msv(x.ttftMs.max)}`);
    const own = g.ownFirstToken;
    if (own !== undefined && own.streams > 0) {
      row(`the gateway's own first token (its request log: relay start → first chunk relayed) p50 / p99 / max; over ${g.stallMs} ms`, '', () => `${msv(own.ms.p50)} / ${msv(own.ms.p99)} / ${msv(own.ms.max)}; ${int(own.slow)} of ${int(own.streams)}`, () => '');
    }
    row('largest gap in a stream p99 / max', `${msv(d.maxGapMs.p99)} / ${msv(d.maxGapMs.max)}`, (x) => `${msv(x.maxGapMs.p99)} / ${msv(x.maxGapMs.max)}`);
    row('stream duration p50 / p99', `${msv(d.totalMs.p50)} / ${msv(d.totalMs.p99)}`, (x) => `${msv(x.totalMs.p50)} / ${msv(x.totalMs.p99)}`);
    row('streams/s', num(d.streamsPerSec), (x) => num(x.streamsPerSec));
    row('relay RSS peak / CPU / CPU per stream', '', (x) => `${num(x.gatewayRssPeakMb)} MB / ${num(x.gatewayCpuPercent, 0)} % / ${x.gatewayCpuMsPerStream === undefined ? '—' : `${num(x.gatewayCpuMsPerStream * 1000, 0)} µs`}`);
    row('relay → upstream connections (peak, /proc/net/tcp)', '', (x) => x.upstreamConnectionsPeak ?? '—');
    push('');
    if (b !== undefined) push('The pass-through starts cold for this burst (no pooled upstream connection, its code not yet optimised); the gateway has served scenarios 1–4 and the soak before it.', '');
  }

  const memory = s.memory;
  if (memory !== undefined) {
    push('#### 6. Gateway memory (VmRSS)', '', '| when | RSS |', '|---|---|');
    push(`| idle, after start-up and a sanity request | ${num(memory.idleMb)} MB |`);
    push(`| peak under ${s.nonStreaming?.gateway.connections ?? 50} connections (scenarios 1, 2 and the soak) | ${num(memory.underLoadPeakMb)} MB |`);
    if (s.slowStreams !== undefined) push(`| peak with ${s.slowStreams.gateway.concurrency} slow streams (scenario 5) | ${num(s.slowStreams.gateway.gatewayRssPeakMb)} MB |`);
    push(`| after load (5 s idle after scenarios 1–4; the soak runs before scenario 5) | ${num(memory.afterLoadMb)} MB |`);
    if (memory.soak !== undefined) {
      const soak = memory.soak;
      push(`| soak (${soak.seconds} s, ${int(soak.requests)} requests, ${int(soak.requestsPerSec)}/s, ${soak.totalErrors} errors): first quarter → last quarter median | ${num(soak.firstQuarterMedianMb)} → ${num(soak.lastQuarterMedianMb)} MB (${signed(soak.growthMb)}, slope ${num(soak.slopeMbPerMin, 2)} MB/min) |`);
      if (soak.bottoms !== undefined) push(`| soak: the RSS sawtooth's bottoms before 37 % → after 70 % of it (${bottomsLabel(soak.bottoms)}) | ${num(soak.bottoms.earlyMb)} → ${num(soak.bottoms.lateMb)} MB (${signed(soak.bottoms.growthMb)}) |`);
      push(`| soak peak | ${num(soak.rssPeakMb)} MB |`);
      if (soak.retainedHeapMb?.length > 0) push(`| retained V8 heap after a forced full GC, at second ${soak.retainedHeapMb.map(([t]) => t).join(' / ')} of the soak (last: 2 s after it) | ${soak.retainedHeapMb.map(([, mb]) => num(mb)).join(' / ')} MB (${soak.retainedHeapGrowthMb >= 0 ? '+' : ''}${num(soak.retainedHeapGrowthMb)} MB) |`);
      push(`| after the soak (5 s idle) | ${num(memory.afterSoakMb)} MB |`);
    }
    push('');
  }

  const workers = s.workers;
  push('#### 7. `relay serve --workers N`', '');
  if (workers === undefined) push('Not run.', '');
  else if (!workers.measured) {
    push(`Not measured: ${workers.reason}. When it exists, \`node bench/run.mjs --only 7 --workers 2\` measures scenario 1 with one and with N workers (gateway not pinned).`, '');
  } else {
    push('| workers | requests/s | p50 | p99 | errors | gateway CPU per request (all its processes) |', '|---|---|---|---|---|---|');
    for (const [count, r] of Object.entries(workers.perWorkers)) push(`| ${count} | ${int(r.requestsPerSec)} | ${msv(r.latencyMs.p50)} | ${msv(r.latencyMs.p99)} | ${r.totalErrors} | ${r.cpuUsPerRequest === undefined ? '—' : `${num(r.cpuUsPerRequest)} µs (${r.processes} processes, ${num(r.cpuPercent)} % CPU)`} |`);
    push('', `Scaling: ×${num(workers.scaling, 2)} (target ≥ 1.7× with two cores free). The gateway is not pinned here; with ${results.meta.machine.cores} cores the fake upstream and the load generator (pinned to core ${results.meta.pinning.loadCore ?? '—'}) share the second worker's core, so this only shows the two-core target when the machine has at least three cores. Each process's CPU per request on a shared core includes what the processes cost each other there (switches, caches evicted), which a core of its own would not. What sharing one SQLite file costs two processes on a core each: \`node bench/micro/two-writers.mjs\`.`, '');
  }
  return lines.join('\n');
}

function renderProfile(profile) {
  const lines = [];
  lines.push(`Recorded ${profile.date.slice(0, 10)} with \`${profile.command}\` (storage ${profile.storage}, pinned: ${profile.pinning ? 'yes' : 'no'}): scenario 1 load, ${Math.round(profile.load.requestsPerSec)} req/s under the profiler (${profile.load.totalErrors} errors), gateway CPU ${profile.load.gatewayCpuPercent} %. Profile: \`${profile.profileFile}\` (open in Chrome DevTools → Performance, or speedscope). Sampled ${profile.sampledMs} ms, busy ${profile.busyPercent} %; percentages are of busy (non-idle) time.`, '');
  if (profile.budget !== undefined) {
    const perRequestUs = ((profile.load.gatewayCpuPercent / 100) * 1e6) / profile.load.requestsPerSec;
    lines.push(`**Where a request's CPU goes** (${Math.round(perRequestUs)} µs of gateway CPU per request under the profiler, which costs about as much again as the gateway itself: read the shares, and scale the µs by the unprofiled CPU per request of the results above. A sample belongs to the request log, the catalog or the ledger when its stack passes through them, else to the nearest recognisable frame from the leaf up.)`, '', '| part | share | ≈ µs per request |', '|---|---|---|');
    for (const row of profile.budget) lines.push(`| ${row.category} | ${row.percent} % | ${Math.round((row.percent / 100) * perRequestUs)} |`);
    lines.push('');
  }
  lines.push('**Self time by package / gateway folder**', '', '| package | self | % |', '|---|---|---|');
  for (const row of profile.packages.slice(0, 16)) lines.push(`| ${row.package} | ${row.selfMs} ms | ${row.selfPercent} % |`);
  lines.push('', '**Top self-time functions**', '', '| # | function | where | self | % |', '|---|---|---|---|---|');
  profile.topFunctions.forEach((row, index) => lines.push(`| ${index + 1} | \`${row.function}\` | ${row.location} | ${row.selfMs} ms | ${row.selfPercent} % |`));
  if (profile.gatewayInclusive !== undefined) {
    lines.push('', '**Gateway functions by total (inclusive) time**', '', '| function | where | total | % |', '|---|---|---|---|');
    for (const row of profile.gatewayInclusive.slice(0, 20)) lines.push(`| \`${row.function}\` | ${row.location} | ${row.totalMs} ms | ${row.totalPercent} % |`);
  }
  lines.push('');
  return lines.join('\n');
}

const template = `# Benchmarks

Generated parts of this file are rewritten by the harness between the \`<!-- bench:… -->\` markers;
everything else is written by hand.

<!-- bench:results:sqlite:start -->
<!-- bench:results:sqlite:end -->

## Profile

<!-- bench:profile:start -->
<!-- bench:profile:end -->
`;

function replaceSection(text, key, body, heading) {
  const start = `<!-- bench:${key}:start -->`;
  const end = `<!-- bench:${key}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) return `${text.trimEnd()}\n\n${heading === undefined ? '' : `${heading}\n\n`}${start}\n${body}\n${end}\n`;
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}

export function updateBenchmarksMd(path, results, profile) {
  let text = existsSync(path) ? readFileSync(path, 'utf8') : template;
  if (results !== undefined) {
    const label = results.meta.storage.replace('+', '-');
    text = replaceSection(text, `results:${label}`, renderResults(results), `## Results (${results.meta.storage})`);
  }
  if (profile !== undefined) {
    const key = profile.storage === 'sqlite' ? 'profile' : `profile:${profile.storage.replace('+', '-')}`;
    text = replaceSection(text, key, renderProfile(profile), profile.storage === 'sqlite' ? '## Profile' : `## Profile (${profile.storage})`);
  }
  writeFileSync(path, text);
}

/** How the soak's bottoms were read: the median tooth bottom of each window, or each window's lowest sample. */
function bottomsLabel(bottoms) {
  return bottoms.of === 'teeth' ? `median of ${bottoms.early} / ${bottoms.late} teeth` : 'lowest sample of each window: no tooth ended in one of them';
}

/**
 * A soak miss's context: the V8 heap that survived forced full collections during the soak. A leak of
 * JavaScript objects shows here; RSS that grows while this stays flat is native memory, or — in a results
 * file judged by the quarters' medians — where the sawtooth's teeth fell.
 */
function retainedHeapNote(readings) {
  if (!Array.isArray(readings) || readings.length < 2) return '';
  const [first, last] = [readings[0][1], readings.at(-1)[1]];
  return `; the V8 heap retained after forced full collections went ${num(first)} → ${num(last)} MB (second ${num(readings[0][0], 0)} → ${num(readings.at(-1)[0], 0)} of the soak)`;
}
