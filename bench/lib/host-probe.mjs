#!/usr/bin/env node
/**
 * What this machine charges for idleness, measured without the gateway (bench/lib/host-calibration.mjs
 * starts it, pinned). Prints one JSON line.
 *
 *   node host-probe.mjs '{"mode":"work"}'           the same small piece of JavaScript (a JSON.parse and
 *                                                   200 Map reads, a few µs), timed back to back and after
 *                                                   each of 20 ms idle
 *   node host-probe.mjs '{"mode":"echo"}'           a loopback TCP server that answers each byte with a byte
 *   node host-probe.mjs '{"mode":"ping","port":N}'  round trips to the echo server, back to back and after
 *                                                   20 ms idle
 * (one JSON argument, as every harness client takes it: processes.mjs#runJsonChild)
 *
 * 20 ms is scenario 4's gap between chunks: on virtual machines whose idle vCPU is descheduled, code that
 * runs after such a gap finds its caches and TLB cold, and every hop between processes on different cores
 * wakes an idle core.
 */
import net from 'node:net';
import { sleep } from './processes.mjs';
import { summarize } from './stats.mjs';

const idleMs = 20;
const elapsedUs = (startedAt) => Number(process.hrtime.bigint() - startedAt) / 1000;

/** Times `run` (which resolves when one sample is done) `count` times, after `gapMs` of idle each when > 0. */
async function sample(run, count, gapMs) {
  const samples = [];
  for (let index = 0; index < count; index++) {
    if (gapMs > 0) await sleep(gapMs);
    samples.push(await run());
  }
  const { p50, p90 } = summarize(samples);
  return { p50, p90 };
}

async function work() {
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 64 });
  const table = new Map();
  for (let index = 0; index < 5000; index++) table.set(`k${index}`, { a: index, b: String(index) });
  let sink = 0;
  const once = () => {
    const parsed = JSON.parse(body);
    let total = parsed.messages[0].content.length;
    for (let index = 0; index < 200; index++) {
      const entry = table.get(`k${(index * 37) % 5000}`);
      total += entry.a + entry.b.length;
    }
    return total;
  };
  const timed = () => {
    const startedAt = process.hrtime.bigint();
    sink += once();
    return elapsedUs(startedAt);
  };
  for (let index = 0; index < 20_000; index++) sink += once();
  const backToBack = await sample(timed, 3000, 0);
  const afterIdle = await sample(timed, 100, idleMs);
  return { backToBackUs: backToBack, afterIdleUs: afterIdle, idleMs, sink: sink > 0 };
}

function echo() {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (bytes) => socket.write(bytes));
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`));
}

async function ping(port) {
  const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const roundTrip = () =>
    new Promise((resolve) => {
      const startedAt = process.hrtime.bigint();
      socket.once('data', () => resolve(elapsedUs(startedAt)));
      socket.write('x');
    });
  for (let index = 0; index < 2000; index++) await roundTrip();
  const backToBack = await sample(roundTrip, 5000, 0);
  const afterIdle = await sample(roundTrip, 100, idleMs);
  socket.destroy();
  return { backToBackUs: backToBack, afterIdleUs: afterIdle, idleMs };
}

const { mode, port } = JSON.parse(process.argv[2] ?? '{}');
if (mode === 'echo') echo();
else {
  const result = mode === 'work' ? await work() : mode === 'ping' ? await ping(port) : undefined;
  if (result === undefined) {
    process.stderr.write('usage: host-probe.mjs \'{"mode":"work"}\' | \'{"mode":"echo"}\' | \'{"mode":"ping","port":N}\'\n');
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
