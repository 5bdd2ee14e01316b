#!/usr/bin/env node
/**
 * Where two builds' instructions differ, by function: reads the main-thread callgrind files and perf maps
 * that `bench/instructions.mjs --keep DIR` leaves (`<build>.callgrind`, `<build>.perf.map`), names JIT
 * frames through the perf map (callgrind knows them only by address), and prints each function's own
 * instructions per request.
 *
 *   node bench/callgrind-functions.mjs DIR/a.callgrind                 the top functions of one build
 *   node bench/callgrind-functions.mjs DIR/a.callgrind DIR/b.callgrind  what moved from a to b, largest first
 *   --callers PATTERN   instead: who calls the functions matching PATTERN (a regular expression), with
 *                       the calls' inclusive instructions and calls per request
 *   --requests N        the requests the counted window held (default 1000, instructions.mjs's default)
 *   --top N             rows to print (default 30)
 *
 * A function's own instructions exclude its callees'; V8's builtins and runtime functions appear under
 * their own names, so a slow path (a runtime call where the JIT usually inlines) shows as a runtime
 * function growing, and `--callers` finds the JavaScript that took it.
 */
import { parseArgs } from 'node:util';
import { readCallgrind } from './lib/callgrind-file.mjs';

const { values: options, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { callers: { type: 'string' }, requests: { type: 'string', default: '1000' }, top: { type: 'string', default: '30' } },
});
const requests = Number(options.requests);
const top = Number(options.top);
if (files.length < 1 || files.length > 2) {
  console.error('usage: node bench/callgrind-functions.mjs [--callers PATTERN] A.callgrind [B.callgrind]');
  process.exit(2);
}

const perRequest = (instructions) => (instructions / requests).toFixed(0).padStart(8);
const builds = files.map((file) => readCallgrind(file, { callersOf: options.callers === undefined ? undefined : new RegExp(options.callers) }));

if (options.callers !== undefined) {
  for (const [index, build] of builds.entries()) {
    console.log(`${files[index]}: calls into /${options.callers}/ (inclusive instructions per request, calls per request)`);
    for (const [edge, sum] of [...build.calls].sort((a, b) => b[1].cost - a[1].cost).slice(0, top)) {
      console.log(`${perRequest(sum.cost)}  ${(sum.count / requests).toFixed(2).padStart(7)}  ${edge.slice(0, 200)}`);
    }
  }
} else if (builds.length === 1) {
  const total = [...builds[0].own.values()].reduce((sum, cost) => sum + cost, 0);
  console.log(`${files[0]}: ${perRequest(total).trim()} instructions per request; own instructions per request by function`);
  for (const [name, cost] of [...builds[0].own].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${perRequest(cost)}  ${name.slice(0, 200)}`);
} else {
  const [a, b] = builds;
  const totals = builds.map((build) => [...build.own.values()].reduce((sum, cost) => sum + cost, 0));
  console.log(`${files[0]} → ${files[1]}: ${perRequest(totals[0]).trim()} → ${perRequest(totals[1]).trim()} instructions per request`);
  console.log('    diff         a         b  function (own instructions per request)');
  const names = new Set([...a.own.keys(), ...b.own.keys()]);
  const moved = [...names].map((name) => ({ name, a: a.own.get(name) ?? 0, b: b.own.get(name) ?? 0 })).map((row) => ({ ...row, diff: row.b - row.a }));
  moved.sort((x, y) => Math.abs(y.diff) - Math.abs(x.diff));
  for (const row of moved.slice(0, top)) {
    const sign = row.diff >= 0 ? '+' : '-';
    console.log(`${sign}${perRequest(Math.abs(row.diff)).trim().padStart(7)}  ${perRequest(row.a)}  ${perRequest(row.b)}  ${row.name.slice(0, 160)}`);
  }
}
