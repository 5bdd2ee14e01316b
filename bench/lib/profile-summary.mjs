/**
 * A V8 .cpuprofile → self time per function and per package. Self time of a node is the sum of the
 * sampling intervals whose sample landed in it (timeDeltas[i] belongs to samples[i]).
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const idleNames = new Set(['(idle)']);

export function summarizeProfile(profile, { repoRoot, top = 30, windowUs } = {}) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  // Sample timestamps are V8 TimeTicks (CLOCK_MONOTONIC, µs): comparable with process.hrtime.bigint() / 1000n
  // of the harness, so start-up and shutdown can be left out.
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Inclusive ("total") time of the gateway's own functions: each sample counts once for every distinct
  // gateway function on its stack.
  const inclusiveUs = new Map();
  const gatewayKeyOf = new Map();
  const gatewayKey = (id) => {
    if (gatewayKeyOf.has(id)) return gatewayKeyOf.get(id);
    const frame = nodes.get(id).callFrame;
    const path = pathOf(frame.url);
    const key = repoRoot !== undefined && path.startsWith(`${repoRoot}/dist/`) ? `${frame.functionName || '(anonymous)'}\u0000${locationOf(frame, repoRoot)}` : undefined;
    gatewayKeyOf.set(id, key);
    return key;
  };
  // Where the CPU goes. A sample belongs to the request log, the catalog or the ledger when its stack passes
  // through them (Kysely's continuations have no gateway frame: a Kysely or driver leaf counts as ledger);
  // otherwise to the nearest recognisable frame from the leaf up (tokenizer, zod, rate limits, undici,
  // node:http/Fastify, or the gateway folder).
  const budgetUs = new Map();
  const categoryOf = new Map();
  // The gateway's own build output (not some package's dist/).
  const dist = repoRoot === undefined ? '/dist/' : `file://${repoRoot}/dist/`;
  const inDist = (u, folder = '') => (repoRoot === undefined ? u.includes(`/dist/${folder}`) : u.startsWith(`${dist}${folder}`));
  const leafRules = [
    [(u) => u.includes('node_modules/gpt-tokenizer/'), () => 'token counting (gpt-tokenizer)'],
    [(u) => u.includes('node_modules/zod/'), () => 'request validation (zod)'],
    [(u) => inDist(u, 'limits/') || u.includes('node_modules/ioredis/') || u.includes('node_modules/rate-limiter-flexible/'), () => 'rate limits (incl. Redis client)'],
    [(u) => u.includes('node_modules/undici/') || u.includes('deps/undici') || inDist(u, 'providers/'), () => 'upstream HTTP client (undici)'],
    [(u) => /node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify\/[^/]+)\/|node:_http_|node:internal\/http/.test(u), () => 'HTTP server (node:http + Fastify)'],
    [(u) => inDist(u), (u) => `gateway code: ${u.slice(dist.length).split('/').slice(0, -1).join('/') || '.'}`],
  ];
  const categorize = (id) => {
    if (categoryOf.has(id)) return categoryOf.get(id);
    const urls = [];
    for (let node = id; node !== undefined; node = parentOf.get(node)) urls.push(nodes.get(node).callFrame.url);
    const leaf = nodes.get(id).callFrame;
    const any = (test) => urls.some((url) => test(url));
    let category;
    if (leaf.functionName === '(garbage collector)') category = 'garbage collector';
    else if (any((u) => inDist(u, 'logging/') || inDist(u, 'storage/logs-repository'))) category = 'request log writes';
    else if (any((u) => inDist(u, 'catalog/'))) category = 'catalog (auth cache, sync)';
    else if (any((u) => inDist(u, 'billing/') && /quota-ledger/.test(u)) || /node_modules\/(kysely|better-sqlite3|pg|pg-protocol|mysql2)\//.test(leaf.url)) category = 'quota ledger: SQL (Kysely + driver + database)';
    else {
      for (const url of urls) {
        const rule = leafRules.find(([test]) => test(url));
        if (rule !== undefined) {
          category = rule[1](url);
          break;
        }
      }
      category ??= leaf.functionName === '(program)' ? 'VM / native / syscalls' : 'other (node internals, microtasks, sockets)';
    }
    categoryOf.set(id, category);
    return category;
  };
  let at = profile.startTime;
  let kept = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (windowUs !== undefined && (at < windowUs[0] || at > windowUs[1])) continue;
    kept++;
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, delta));
    if (nodes.get(id).callFrame.functionName !== '(idle)') {
      const category = categorize(id);
      budgetUs.set(category, (budgetUs.get(category) ?? 0) + Math.max(0, delta));
    }
    const seen = new Set();
    for (let node = id; node !== undefined; node = parentOf.get(node)) {
      const key = gatewayKey(node);
      if (key === undefined || seen.has(key)) continue;
      seen.add(key);
      inclusiveUs.set(key, (inclusiveUs.get(key) ?? 0) + Math.max(0, delta));
    }
  }
  let totalUs = 0;
  let idleUs = 0;
  const byFunction = new Map();
  const byPackage = new Map();
  for (const [id, us] of selfUs) {
    const node = nodes.get(id);
    const frame = node.callFrame;
    const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
    totalUs += us;
    if (idleNames.has(name)) {
      idleUs += us;
      continue;
    }
    const location = locationOf(frame, repoRoot);
    const key = `${name}\u0000${location}`;
    const entry = byFunction.get(key) ?? { function: name, location, package: packageOf(frame, repoRoot), selfUs: 0 };
    entry.selfUs += us;
    byFunction.set(key, entry);
    const pkg = entry.package;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  const busyUs = totalUs - idleUs;
  const asPercent = (us) => Math.round((us / busyUs) * 1000) / 10;
  const topFunctions = [...byFunction.values()]
    .sort((a, b) => b.selfUs - a.selfUs)
    .slice(0, top)
    .map((entry) => ({ ...entry, selfMs: Math.round(entry.selfUs / 1000), selfPercent: asPercent(entry.selfUs) }));
  const packages = [...byPackage.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => ({ package: name, selfMs: Math.round(us / 1000), selfPercent: asPercent(us) }));
  const gatewayInclusive = [...inclusiveUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, value]) => {
      const [fn, location] = key.split('\u0000');
      return { function: fn, location, totalMs: Math.round(value / 1000), totalPercent: asPercent(value) };
    });
  const budget = [...budgetUs.entries()].sort((a, b) => b[1] - a[1]).map(([category, value]) => ({ category, selfMs: Math.round(value / 1000), percent: asPercent(value) }));
  return {
    samples: kept,
    windowed: windowUs !== undefined,
    sampledMs: Math.round(totalUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    busyPercent: Math.round((busyUs / totalUs) * 1000) / 10,
    topFunctions,
    packages,
    gatewayInclusive,
    budget,
  };
}

function pathOf(url) {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return url;
    }
  }
  return url;
}

function locationOf(frame, repoRoot) {
  if (frame.url === '') return '(native / VM)';
  let path = pathOf(frame.url);
  if (repoRoot !== undefined && path.startsWith(repoRoot)) path = relative(repoRoot, path);
  return `${path}:${frame.lineNumber + 1}`;
}

/** node_modules/<pkg>, the gateway's own dist/<dir>, node:internal, or the VM itself. */
function packageOf(frame, repoRoot) {
  const name = frame.functionName;
  if (frame.url === '') {
    if (name === '(garbage collector)') return '(garbage collector)';
    if (name === '(program)') return '(program: VM, native, syscalls)';
    return '(native)';
  }
  const path = pathOf(frame.url);
  const modules = path.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const rest = path.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (path.startsWith('node:')) {
    const internal = path.replace(/^node:/, '').replace(/^internal\//, '').split('/');
    return `node:${internal.length > 1 ? internal.slice(0, -1).join('/') : internal[0]}`;
  }
  if (repoRoot !== undefined && path.startsWith(repoRoot)) {
    const inside = relative(repoRoot, path).split('/');
    return inside[0] === 'dist' ? `gateway: ${inside.slice(1, -1).join('/') || '.'}` : inside[0];
  }
  return path;
}
