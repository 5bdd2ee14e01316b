/** Child processes of the harness: spawn (pinned to a core when taskset is available), wait, measure, stop. */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

let clockTicks;
/** Clock ticks per second of /proc/<pid>/stat CPU times. */
export function clockTicksPerSecond() {
  if (clockTicks === undefined) {
    const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    clockTicks = Number(result.stdout?.trim()) || 100;
  }
  return clockTicks;
}

export function tasksetAvailable() {
  const result = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  return result.status === 0;
}

/**
 * Starts `node ...args` (or any command) pinned to `core` when given. Collects stdout lines; stderr is
 * kept (last 64 KB) for error messages.
 */
export function startProcess(name, command, args, { core, env, cwd } = {}) {
  const [file, argv] = core === undefined ? [command, args] : ['taskset', ['-c', String(core), command, ...args]];
  const child = spawn(file, argv, { env: env ?? process.env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const handle = { name, child, pid: child.pid, lines: [], stderr: '', exited: undefined, lineWaiters: [] };
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    partial += text;
    let at;
    while ((at = partial.indexOf('\n')) !== -1) {
      const line = partial.slice(0, at);
      partial = partial.slice(at + 1);
      handle.lines.push(line);
      for (const waiter of [...handle.lineWaiters]) waiter(line);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    handle.stderr = (handle.stderr + text).slice(-65536);
  });
  handle.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return handle;
}

/** Resolves with the first stdout line matching `test` (already seen or future); rejects on exit or timeout. */
export function waitForLine(handle, test, timeoutMs = 60_000) {
  const seen = handle.lines.find(test);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${handle.name}: no expected output after ${timeoutMs} ms\n${handle.stderr}`)), timeoutMs);
    const waiter = (line) => {
      if (!test(line)) return;
      cleanup();
      resolve(line);
    };
    const fail = (error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      clearTimeout(timer);
      handle.lineWaiters = handle.lineWaiters.filter((w) => w !== waiter);
    };
    handle.lineWaiters.push(waiter);
    void handle.exited.then(({ code, signal }) => fail(new Error(`${handle.name} exited (code ${code}, signal ${signal}) before it was ready\n${handle.stderr}\n${handle.lines.join('\n')}`)));
  });
}

/** Runs a harness client script to completion and returns the JSON it printed last. */
export async function runJsonChild(name, script, spec, { core, env } = {}) {
  const handle = startProcess(name, process.execPath, [script, JSON.stringify(spec)], { core, env });
  const { code, signal } = await handle.exited;
  const last = [...handle.lines].reverse().find((line) => line.startsWith('{'));
  if (code !== 0 || last === undefined) throw new Error(`${name} failed (code ${code}, signal ${signal})\n${handle.stderr}\n${handle.lines.join('\n')}`);
  return JSON.parse(last);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stopProcess(handle, graceMs = 15_000) {
  if (handle === undefined || handle.child.exitCode !== null || handle.child.signalCode !== null) return;
  handle.child.kill('SIGTERM');
  const timer = setTimeout(() => handle.child.kill('SIGKILL'), graceMs);
  await handle.exited;
  clearTimeout(timer);
}

/** Resident set size of a process in MB (VmRSS of /proc/<pid>/status), undefined when unreadable. */
export function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match === null ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** User and system CPU seconds used so far by a process (/proc/<pid>/stat), undefined when unreadable. */
export function cpuSplit(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ": state is field 3 → index 0; utime is field 14 → index 11, stime index 12.
    return { user: Number(fields[11]) / clockTicksPerSecond(), system: Number(fields[12]) / clockTicksPerSecond() };
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds used so far by a process, undefined when unreadable. */
export function cpuSeconds(pid) {
  const split = cpuSplit(pid);
  return split === undefined ? undefined : split.user + split.system;
}

/** A process and all its descendants (Linux: /proc/<pid>/task/<tid>/children), the process first. */
export function processTree(pid) {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${tree[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${tree[i]}/task/${task}/children`, 'utf8').trim();
        if (children !== '') tree.push(...children.split(/\s+/).map(Number));
      } catch {
        // The task ended meanwhile.
      }
    }
  }
  return tree;
}

/** Samples RSS of the given pids every `everyMs` until stopped; returns { [pid]: [{ tSec, rssMb }] }. */
export function sampleRss(pids, everyMs) {
  const startedAt = Date.now();
  const samples = Object.fromEntries(pids.map((pid) => [pid, []]));
  const take = () => {
    const tSec = (Date.now() - startedAt) / 1000;
    for (const pid of pids) {
      const value = rssMb(pid);
      if (value !== undefined) samples[pid].push({ tSec, rssMb: value });
    }
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** CPU use of each pid over a span: { [pid]: { cpuSec, percent } } (percent of one core). */
export function cpuMeter(pids) {
  const startedAt = process.hrtime.bigint();
  const before = Object.fromEntries(pids.map((pid) => [pid, cpuSplit(pid)]));
  return {
    stop() {
      const elapsed = Number(process.hrtime.bigint() - startedAt) / 1e9;
      return Object.fromEntries(
        pids.map((pid) => {
          const after = cpuSplit(pid);
          if (after === undefined || before[pid] === undefined) return [pid, { cpuSec: undefined, percent: undefined }];
          const user = after.user - before[pid].user;
          const system = after.system - before[pid].system;
          const cpuSec = user + system;
          return [pid, { cpuSec, percent: (cpuSec / elapsed) * 100, systemShare: cpuSec > 0 ? system / cpuSec : undefined }];
        }),
      );
    },
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Established TCP connections whose remote port is `port`, from /proc/net/tcp{,6}: those of process `pid`, or of any local process. */
export function establishedTo(port, pid) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const owned = pid === undefined ? undefined : socketInodes(pid);
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      // fields[2] = rem_address "IP:PORT", fields[3] = state (01 = ESTABLISHED), fields[9] = the socket's inode
      if (fields[3] === '01' && fields[2].endsWith(`:${hex}`) && (owned === undefined || owned.has(fields[9]))) count++;
    }
  }
  return count;
}

/** The inodes of the sockets process `pid` holds open (its /proc/PID/fd links `socket:[INODE]`). */
function socketInodes(pid) {
  const inodes = new Set();
  const dir = `/proc/${pid}/fd`;
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return inodes;
  }
  for (const name of names) {
    try {
      const link = readlinkSync(`${dir}/${name}`);
      if (link.startsWith('socket:[')) inodes.add(link.slice(8, -1));
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Peak of `read()` sampled every `everyMs` until stopped. */
export function samplePeak(read, everyMs) {
  let peak = read();
  const timer = setInterval(() => {
    peak = Math.max(peak, read());
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, read());
    },
  };
}

/** Busy and total jiffies per core from /proc/stat: { 0: { busy, total }, 1: … }. */
export function coreTimes() {
  const out = {};
  try {
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      const match = /^cpu(\d+)\s+(.*)$/.exec(line);
      if (match === null) continue;
      const values = match[2].trim().split(/\s+/).map(Number);
      // user nice system idle iowait irq softirq steal …
      const idle = values[3] + (values[4] ?? 0);
      const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
      out[match[1]] = { busy: total - idle, total };
    }
  } catch {
    // not Linux
  }
  return out;
}

/** Busy percent of one core between two coreTimes() readings. */
export function coreBusyPercent(before, after, core) {
  const a = before[core];
  const b = after[core];
  if (a === undefined || b === undefined || b.total === a.total) return undefined;
  return ((b.busy - a.busy) / (b.total - a.total)) * 100;
}

/**
 * Waits until every core has been at most `maxBusyPercent` busy for one second (other tenants of the
 * machine distort every number), up to `timeoutMs`. Returns the seconds waited and whether it got quiet.
 */
export async function waitForQuiet({ maxBusyPercent = 12, timeoutMs = 60_000 } = {}) {
  const started = Date.now();
  for (;;) {
    const before = coreTimes();
    await sleep(1000);
    const after = coreTimes();
    const busiest = Math.max(0, ...Object.keys(after).map((core) => coreBusyPercent(before, after, core) ?? 0));
    if (busiest <= maxBusyPercent) return { waitedSec: Math.round((Date.now() - started) / 1000), quiet: true };
    if (Date.now() - started > timeoutMs) return { waitedSec: Math.round((Date.now() - started) / 1000), quiet: false, busiest: Math.round(busiest) };
  }
}
