/**
 * A Chat request with `web_search_options` (OpenAI's search-preview models) is billed one search per
 * delivered answer at the model's `web_search` price, and reserves it (from the Chat-parameters audit,
 * test/audit-chatparams): OpenAI bills each such call a search fee that its answer does not count, and the
 * gateway served it free. Pass-through to an OpenAI Chat channel, whole and streamed, through the openai SDK.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callerKey, channelConfig } from './billing-fixture.js';

const smallKey = `sk-${'w'.repeat(48)}`;
const model = 'gpt-4o-search-preview';
/** $2.50 / $10 per 1M tokens, $0.025 a search: 12,500 units at 500,000 per $. */
const perSearch = 12_500;
/** 10 in + 10 out: 125 $ per 1M × 0.5 units, rounded half up. */
const tokensOnly = 63;
const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
const message = { role: 'assistant', content: 'It is sunny.', annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com', title: 'x', start_index: 0, end_index: 5 } }] };

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let sdk: OpenAI;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      retry_times: 0,
      prices: { [model]: { input: 2.5, output: 10, web_search: 0.025 } },
      channels: [channelConfig('chat', 'openai-chat', upstream.url, 1, [model])],
      users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 1_000_000_000 }],
      tokens: [
        { name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, quota: 1_000_000_000 },
        { name: 'small-key', user: 'payer', key: smallKey, expires_at: 0, enabled: true, quota: 10_000 },
      ],
    } as never,
  });
  sdk = new OpenAI({ apiKey: callerKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => upstream.clearQueue());

async function lastLog() {
  await gateway.settled();
  const rows = await gateway.gateway.services.database.db.selectFrom('logs').selectAll().orderBy('id').execute();
  const row = rows.at(-1)!;
  return { quota: Number(row.quota), searches: Number(row.web_search_calls), status: Number(row.status) };
}

describe('Chat web_search_options', () => {
  it('a whole answer is billed one search on top of its tokens', async () => {
    upstream.enqueue({ json: { id: 'c1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message, finish_reason: 'stop' }], usage } });
    await sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'weather in Paris?' }], web_search_options: {} });
    expect(await lastLog()).toEqual({ quota: tokensOnly + perSearch, searches: 1, status: 200 });
  });

  it('a stream is billed one search on top of its tokens', async () => {
    const base = { id: 'c2', object: 'chat.completion.chunk', created: 1, model };
    upstream.enqueue({
      sse: [
        { data: { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'It is sunny.' }, finish_reason: null }] } },
        { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } },
        { data: { ...base, choices: [], usage } },
        { data: '[DONE]' },
      ],
    });
    const stream = await sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'weather in Paris?' }], web_search_options: { search_context_size: 'low' }, stream: true });
    for await (const chunk of stream) void chunk;
    expect(await lastLog()).toEqual({ quota: tokensOnly + perSearch, searches: 1, status: 200 });
  });

  it('a request without web_search_options is billed no search', async () => {
    upstream.enqueue({ json: { id: 'c3', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message, finish_reason: 'stop' }], usage } });
    await sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'weather in Paris?' }] });
    expect(await lastLog()).toEqual({ quota: tokensOnly, searches: 0, status: 200 });
  });

  it('a 2xx error document delivered nothing and is billed nothing', async () => {
    upstream.enqueue({ json: { error: { message: 'upstream broke', type: 'server_error' } } });
    const status = await sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'weather?' }], web_search_options: {} }).then(() => 200, (error: { status: number }) => error.status);
    expect({ status, log: await lastLog() }).toEqual({ status: 502, log: { quota: 0, searches: 0, status: 502 } });
  });

  it('the search is reserved: a key that covers the tokens but not the search is refused before any upstream call', async () => {
    // max_tokens 100: ≈ 500 units of tokens, under the key's 10,000; with the 12,500-unit search, over.
    const small = new OpenAI({ apiKey: smallKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const before = upstream.requests.length;
    const status = await small.chat.completions.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }], web_search_options: {} }).then(() => 200, (error: { status: number }) => error.status);
    expect({ status, upstreamCalls: upstream.requests.length - before }).toEqual({ status: 402, upstreamCalls: 0 });
  });
});
