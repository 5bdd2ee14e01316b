import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/**
 * `POST /v1/responses/compact` (docs/behaviour.md: routed and priced as `<model>-openai-compact`, the plain
 * model name, mapped, goes upstream; README: OpenAI channels with `settings.api: responses`), and the
 * model a converted Responses answer names when the channel maps the model.
 * Prices: input $2, output $8 per 1M; quota_per_unit 500000 → (in×2 + out×8) / 2.
 */
const key = `sk-${'c'.repeat(48)}`;
let gateway: TestGateway;
let responsesUp: ScriptedUpstream;
let chatUp: ScriptedUpstream;
let client: OpenAI;

const compacted = (usage: unknown) => ({
  id: 'resp_cmp1', object: 'response.compaction', created_at: 1760000000,
  output: [{ id: 'msg_1', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'earlier question' }] }, { id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAAAB-opaque' }],
  ...(usage === undefined ? {} : { usage }),
});

beforeAll(async () => {
  responsesUp = await startScriptedUpstream();
  chatUp = await startScriptedUpstream();
  const channel = (name: string, url: string, models: string[], mapping: Record<string, string>, settings: Record<string, unknown>) => ({
    name, type: 'openai' as const, base_url: url, key: `up-${name}`, models, groups: ['default'], priority: 0, weight: 1, model_mapping: mapping, enabled: true, auto_disable: false, settings,
  });
  const price = { input: 2, output: 8 };
  gateway = await startTestGateway({
    config: {
      prices: { 'gpt-5': price, 'gpt-5-openai-compact': price, 'alias-openai-compact': price, 'my-alias': price, 'chat-only-openai-compact': price, 'chat-only': price },
      channels: [
        channel('responses', responsesUp.url, ['gpt-5', 'gpt-5-openai-compact', 'alias-openai-compact'], { alias: 'gpt-5' }, { api: 'responses' }),
        channel('chat', chatUp.url, ['my-alias', 'chat-only', 'chat-only-openai-compact'], { 'my-alias': 'gpt-4o-mini-2024-07-18' }, {}),
      ],
      tokens: [{ name: 'caller', key, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await responsesUp?.close();
  await chatUp?.close();
});

async function lastLog() {
  await gateway.settled();
  return (await gateway.gateway.services.repositories.logs.list({}, { page: 1, pageSize: 1 })).items[0]! as any;
}

describe('POST /v1/responses/compact', () => {
  it('a mapped alias: routed and priced as alias-openai-compact, the mapped plain name goes upstream, usage billed', async () => {
    responsesUp.enqueue({ json: compacted({ input_tokens: 1000, input_tokens_details: { cached_tokens: 0 }, output_tokens: 250, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1250 }) });
    const result = await client.post<any>('/responses/compact', { body: { model: 'alias', input: [{ role: 'user', content: 'earlier question' }] } });
    expect(result.output.at(-1)).toMatchObject({ type: 'compaction', encrypted_content: 'gAAAAB-opaque' });
    expect(responsesUp.requests.at(-1)).toMatchObject({ path: '/v1/responses/compact', body: { model: 'gpt-5', input: [{ role: 'user', content: 'earlier question' }] } });
    expect(await lastLog()).toMatchObject({ model: 'alias-openai-compact', upstream_model: 'gpt-5', usage_source: 'upstream', input_tokens: 1000, output_tokens: 250, quota: (1000 * 2 + 250 * 8) / 2 });
  });

  it('the SDK\'s own responses.compact() works through the gateway', async () => {
    responsesUp.enqueue({ json: compacted({ input_tokens: 10, output_tokens: 5, total_tokens: 15 }) });
    const compact = (client.responses as any).compact;
    if (typeof compact !== 'function') return; // older SDKs have no helper
    const result = await compact.call(client.responses, { model: 'gpt-5', input: 'earlier question' });
    expect(result.object).toBe('response.compaction');
  });

  it('a compaction answer without usage: the prompt is still charged (local), never zero', async () => {
    responsesUp.enqueue({ json: compacted(undefined) });
    await client.post('/responses/compact', { body: { model: 'gpt-5', input: 'a long earlier conversation to compact' } });
    const row = await lastLog();
    expect(row.usage_source).toBe('local');
    expect(row.input_tokens).toBeGreaterThan(0);
    expect(row.quota).toBeGreaterThan(0);
  });

  it('an upstream 400 comes back in the OpenAI envelope, uncharged', async () => {
    responsesUp.enqueue({ status: 400, json: { error: { message: 'Invalid input item', type: 'invalid_request_error', param: 'input', code: null } } });
    const error: any = await client.post('/responses/compact', { body: { model: 'gpt-5', input: 'x' } }).catch((caught) => caught);
    expect(error?.status).toBe(400);
    expect(error.error).toMatchObject({ message: expect.stringContaining('Invalid input item'), param: 'input' });
    expect((await lastLog()).quota).toBe(0);
  });

  it('a model whose compact name no channel lists → 400 model_not_found, no upstream call', async () => {
    const calls = responsesUp.requests.length + chatUp.requests.length;
    const error: any = await client.post('/responses/compact', { body: { model: 'my-alias', input: 'x' } }).catch((caught) => caught);
    expect(error?.status).toBe(400);
    expect(error.code ?? error.error?.code).toBe('model_not_found');
    expect(responsesUp.requests.length + chatUp.requests.length).toBe(calls);
  });

  it('stream: true is not relayed as a stream request (compaction is not streamed; new-api forces it off)', async () => {
    // Why it matters: an upstream that honours it answers SSE, which this non-streaming relay reads as an
    // opaque body: its usage is never found and only the prompt is billed (probed: 150,000 reported tokens → 3 units).
    responsesUp.enqueue({ json: compacted({ input_tokens: 10, output_tokens: 5, total_tokens: 15 }) });
    const response = await fetch(`${gateway.url}/v1/responses/compact`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-5', input: 'x', stream: true }) });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { object: string }).object).toBe('response.compaction');
    expect(responsesUp.requests.at(-1)!.body.stream, 'protocols.md §8: compaction is not streamed; new-api forces stream off').not.toBe(true);
  });
});

describe('the model a converted Responses answer names', () => {
  it.each([false, true])('a channel mapping my-alias → gpt-4o-mini-2024-07-18: the answer says my-alias (stream=%s)', async (stream) => {
    chatUp.enqueue(replyFor('openai-chat', { text: 'Hi', usage: { input: 3, output: 1 } }, stream));
    const response = stream ? await client.responses.stream({ model: 'my-alias', input: 'hi' }).finalResponse() : await client.responses.create({ model: 'my-alias', input: 'hi' });
    expect(chatUp.requests.at(-1)!.body.model).toBe('gpt-4o-mini-2024-07-18');
    expect(response.model).toBe('my-alias');
    expect(await lastLog()).toMatchObject({ model: 'my-alias', upstream_model: 'gpt-4o-mini-2024-07-18' });
  });
});
