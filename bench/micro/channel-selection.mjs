#!/usr/bin/env node
/**
 * Micro-benchmark behind a row of BENCHMARKS.md: what choosing a channel costs per request as the catalog
 * grows. Each relay request asks for its candidates twice (the envelope's "does anything serve this?" and
 * the failover's choice) and selectChannel once; the candidates of a (group, model) are computed once per
 * catalog snapshot and then reused (src/routing/select-channel.ts).
 *   scan   — the candidates computed on every call (a fresh copy of the channel list each call defeats the
 *            cache; the copy's own cost is measured apart and subtracted)
 *   cached — the same list every call, as one catalog snapshot serves many requests
 * Needs `npm run build`. Usage: node bench/micro/channel-selection.mjs [channels=500] [calls=20000]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { candidateChannels, selectChannel } = await import(pathToFileURL(join(root, 'dist', 'routing', 'select-channel.js')).href);

const channelCount = Number(process.argv[2] ?? 500);
const calls = Number(process.argv[3] ?? 20_000);
const models = (index) => Array.from({ length: 20 }, (_, m) => `model-${(index + m) % 200}`);
const channels = Array.from({ length: channelCount }, (_, index) => ({
  id: index + 1, name: `c${index}`, type: 'openai', baseUrl: 'http://127.0.0.1:1', keys: ['k'], models: models(index),
  groups: index % 3 === 0 ? ['default', 'vip'] : ['default'], priority: index % 4, weight: 1 + (index % 5), modelMapping: {},
  settings: {}, status: 'enabled', autoDisable: true, statusReason: null, usedQuota: 0, requestCount: 0,
}));
const types = new Set(['openai', 'anthropic', 'gemini']);
const query = { group: 'default', model: 'model-10', excluded: new Set(), coolingDown: new Set(), pinnedChannelId: undefined, channelTypes: types };

function perRequest(list) {
  if (candidateChannels(list, query).length === 0) throw new Error('no candidates');
  return selectChannel(list, query, Math.random);
}
function timePerCall(work) {
  for (let i = 0; i < 2_000; i += 1) work();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) work();
  return Number(process.hrtime.bigint() - started) / 1e3 / calls;
}
let sink = 0;
const copyOnly = timePerCall(() => (sink += channels.slice().length));
const scan = timePerCall(() => perRequest(channels.slice())) - copyOnly;
const cached = timePerCall(() => perRequest(channels));
process.stdout.write(`${channelCount} channels, per request (two candidate lookups + one choice): scan ${scan.toFixed(2)} µs, cached ${cached.toFixed(2)} µs${sink > 0 ? '' : ' '}\n`);
