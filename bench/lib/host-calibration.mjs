/**
 * What idleness costs on this machine, before any gateway runs (bench/lib/host-probe.mjs): the same few µs
 * of JavaScript on the gateway's core back to back and after 20 ms idle, and a loopback TCP round trip from
 * the load core to the gateway's core, the same two ways. Scenario 4 sends a chunk every 20 ms, so its
 * first token meets both: every µs of work the gateway does then costs `factor` µs, and each hop between
 * processes wakes an idle core.
 */
import { join } from 'node:path';
import { runJsonChild, startProcess, stopProcess, waitForLine } from './processes.mjs';
import { round } from './stats.mjs';

const roundedTimes = ({ p50, p90 }) => ({ p50: round(p50, 1), p90: round(p90, 1) });

/** { work: { backToBackUs, afterIdleUs, factor }, roundTrip: { backToBackUs, afterIdleUs }, idleMs } in µs (p50/p90). */
export async function calibrateHost(benchDir, { gatewayCore, loadCore }) {
  const script = join(benchDir, 'lib', 'host-probe.mjs');
  const work = await runJsonChild('host-probe work', script, { mode: 'work' }, { core: gatewayCore });
  const echo = startProcess('host-echo', process.execPath, [script, JSON.stringify({ mode: 'echo' })], { core: gatewayCore });
  try {
    const port = JSON.parse(await waitForLine(echo, (line) => line.startsWith('{"listening"'))).listening;
    const roundTrip = await runJsonChild('host-probe ping', script, { mode: 'ping', port }, { core: loadCore });
    return {
      idleMs: work.idleMs,
      work: { backToBackUs: roundedTimes(work.backToBackUs), afterIdleUs: roundedTimes(work.afterIdleUs), factor: round(work.afterIdleUs.p50 / work.backToBackUs.p50, 1) },
      roundTrip: { backToBackUs: roundedTimes(roundTrip.backToBackUs), afterIdleUs: roundedTimes(roundTrip.afterIdleUs) },
    };
  } finally {
    await stopProcess(echo);
  }
}
