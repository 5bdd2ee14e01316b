import { setFlagsFromString } from 'node:v8';

/**
 * After each full collection V8 lets the old generation grow to a multiple of what survived it — up to
 * 4× on a machine with much memory. The gateway's retained heap is ~30 MB, and under steady load it
 * promoted ~1 MB/s (session 6: log rows waiting for their batch, reservations and sockets in flight),
 * so the old generation filled to 70–120 MB before a mark-compact: most of the RSS peak (session 6,
 * BENCHMARKS.md). At 100 % (the default) it is collected at ~60 MB: RSS peak 183-193 -> 155-162 MB under
 * 50 connections. 50 % saves a few MB more but cost ~5 % CPU per request in one A/B (more mark-compacts).
 *
 * Applied at run time (V8 reads the flag at each full collection); `--heap-growing-percent` on node's own
 * command line wins, and 0 keeps V8's factor. Returns whether the flag was set.
 */
export function tuneHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv): boolean {
  if (percent <= 0 || execArgv.some((flag) => flag.startsWith('--heap-growing-percent') || flag.startsWith('--heap_growing_percent'))) return false;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}
