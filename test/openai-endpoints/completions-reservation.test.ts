/**
 * From the endpoints audit: legacy /v1/completions can make several completions per request — `n`, `best_of`
 * (server-side candidates, all billed), and a `prompt` array (one completion per prompt, × n). The
 * reservation must cover all of them, or a key that covers one completion gets several and the overage
 * is lost (settlement only takes the overage as far as the balance goes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const keys = ['n', 'best', 'arr', 'ctl'] as const;
const keyOf = (name: string) => `sk-${name.padEnd(48, 'q')}`;
let upstream: ScriptedUpstream;
let gateway: TestGateway;
const maxTokens = 1000;
/** Output at 15 $/M × 0.5 units per $·tok/M = 7.5 units/token: one completion's budget ≈ 7,500; eight ≈ 60,000. */
const balance = 12_000;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      retry_times: 0,
      prices: { 'gpt-3.5-turbo-instruct': { input: 3, output: 15 } },
      channels: [{ name: 'oai', type: 'openai', base_url: upstream.url, key: 'sk-up', models: ['gpt-3.5-turbo-instruct'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 100_000_000, enabled: true }],
      tokens: keys.map((name) => ({ name, user: 'u', key: keyOf(name), quota: balance, expires_at: 0, enabled: true })),
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function usedOf(name: string): Promise<number> {
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select(['used_quota']).where('name', '=', name).executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

/** Posts a completions body whose upstream answer holds `completions` full-length choices and their usage. */
async function run(key: string, body: Record<string, unknown>, completions: number): Promise<{ status: number; upstreamCalls: number; used: number }> {
  const before = upstream.requests.length;
  const usedBefore = await usedOf(key);
  const text = 'word '.repeat(maxTokens).trim();
  const choices = Array.from({ length: completions }, (_, index) => ({ index, text, logprobs: null, finish_reason: 'length' }));
  upstream.enqueue({ json: { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'gpt-3.5-turbo-instruct', choices, usage: { prompt_tokens: 9, completion_tokens: completions * maxTokens, total_tokens: 9 + completions * maxTokens } } });
  const response = await fetch(`${gateway.url}/v1/completions`, { method: 'POST', headers: { authorization: `Bearer ${keyOf(key)}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  await gateway.settled();
  upstream.clearQueue();
  return { status: response.status, upstreamCalls: upstream.requests.length - before, used: (await usedOf(key)) - usedBefore };
}

describe('legacy completions: the reservation covers every completion the upstream is asked to make', () => {
  it('n = 8: a key covering one completion but not eight is refused (402) before any upstream call', async () => {
    expect(await run('n', { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hello', n: 8, max_tokens: maxTokens }, 8)).toEqual({ status: 402, upstreamCalls: 0, used: 0 });
  });

  it('best_of = 8 (n = 1): eight candidates are generated and billed, so it is refused (402) likewise', async () => {
    expect(await run('best', { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hello', best_of: 8, max_tokens: maxTokens }, 8)).toEqual({ status: 402, upstreamCalls: 0, used: 0 });
  });

  it('prompt as an array of 8 strings: one completion per prompt, so it is refused (402) likewise', async () => {
    const prompt = Array.from({ length: 8 }, (_, i) => `Say hello ${i}`);
    expect(await run('arr', { model: 'gpt-3.5-turbo-instruct', prompt, max_tokens: maxTokens }, 8)).toEqual({ status: 402, upstreamCalls: 0, used: 0 });
  });

  it('n and best_of an upstream would read otherwise are refused (400 naming the field) before any upstream call', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const before = upstream.requests.length;
      const response = await fetch(`${gateway.url}/v1/completions`, { method: 'POST', headers: { authorization: `Bearer ${keyOf('ctl')}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hello', ...body }) });
      const error = ((await response.json()) as { error: { param: string } }).error;
      return { status: response.status, param: error.param, upstreamCalls: upstream.requests.length - before };
    };
    expect(await refused({ n: '8' })).toEqual({ status: 400, param: 'n', upstreamCalls: 0 });
    expect(await refused({ n: 0 })).toEqual({ status: 400, param: 'n', upstreamCalls: 0 });
    expect(await refused({ best_of: 21 })).toEqual({ status: 400, param: 'best_of', upstreamCalls: 0 });
    expect(await refused({ n: 3, best_of: 2 })).toEqual({ status: 400, param: 'best_of', upstreamCalls: 0 });
  });

  it('control: n = 1 with the same budget is served and charged in full', async () => {
    const out = await run('ctl', { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hello', max_tokens: maxTokens }, 1);
    expect(out.status).toBe(200);
    expect(out.used).toBe(Math.round((9 * 3 + 1000 * 15) * 0.5));
  });
});
