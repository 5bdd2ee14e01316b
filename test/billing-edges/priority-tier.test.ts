/**
 * OpenAI's Priority processing (`service_tier: "priority"`) is billed by OpenAI at about 1.7–2× its standard
 * rates (from the Chat-parameters audit, test/audit-chatparams): a request that asks for it is reserved and,
 * when the answer says it was served at that tier, charged at the price's `priority` multiplier; at a price
 * without one the tier is not sent upstream (docs/behaviour.md "Billing"). Chat and Responses pass-through,
 * whole and streamed, through the openai SDK, on every database.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callAdmin } from '../admin/admin-client.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { callerKey, channelConfig } from './billing-fixture.js';

const smallKey = `sk-${'p'.repeat(48)}`;
/** $ per 1M tokens; 500,000 quota units per $. gpt-4o prices the tier (×1.7), gpt-4o-mini and gpt-4.1 do not. */
const prices = {
  'gpt-4o': { input: 2.5, output: 10, priority: 1.7 },
  'gpt-4o-mini': { input: 2.5, output: 10 },
  'gpt-5': { input: 2, output: 8, priority: 2 },
  'gpt-4.1': { input: 2, output: 8 },
};
/** 1,000 in + 1,000 out at gpt-4o's standard prices: 12,500 $ per 1M tokens × 0.5 units. */
const standard4o = 6_250;
const usage = { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 };
const responsesUsage = { input_tokens: 1000, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1000, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2000 };

const chatAnswer = (tier: string) => ({ id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4o', service_tier: tier, choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage });
const chatStream = (tier: string) => {
  const base = { id: 'c2', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', service_tier: tier };
  return [
    { data: { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] } },
    { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } },
    { data: { ...base, choices: [], usage } },
    { data: '[DONE]' },
  ];
};
const responsesAnswer = (model: string, tier: string) => ({
  id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model, service_tier: tier, error: null, incomplete_details: null,
  output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'hi', annotations: [] }] }],
  usage: responsesUsage,
});

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`service_tier "priority" on ${dialect}`, () => {
    let chatUp: ScriptedUpstream;
    let responsesUp: ScriptedUpstream;
    let gateway: TestGateway;
    let sdk: OpenAI;
    beforeAll(async () => {
      chatUp = await startScriptedUpstream();
      responsesUp = await startScriptedUpstream();
      gateway = await startTestGateway({
        dialect,
        config: {
          retry_times: 0,
          prices,
          channels: [
            channelConfig('chat', 'openai-chat', chatUp.url, 1, ['gpt-4o', 'gpt-4o-mini']),
            channelConfig('responses', 'openai-responses', responsesUp.url, 1, ['gpt-5', 'gpt-4.1']),
          ],
          users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 1_000_000_000 }],
          tokens: [
            { name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, quota: 1_000_000_000 },
            { name: 'small-key', user: 'payer', key: smallKey, expires_at: 0, enabled: true, quota: 8_000 },
          ],
        } as never,
      });
      sdk = new OpenAI({ apiKey: callerKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    });
    afterAll(async () => {
      await gateway?.close();
      await chatUp?.close();
      await responsesUp?.close();
    });
    beforeEach(() => {
      chatUp.clearQueue();
      responsesUp.clearQueue();
    });

    async function lastLog() {
      await gateway.settled();
      const rows = await gateway.gateway.services.database.db.selectFrom('logs').selectAll().orderBy('id').execute();
      const row = rows.at(-1)!;
      return { quota: Number(row.quota), warnings: JSON.parse(String(row.warnings)) as string[] };
    }
    const sentTier = (upstream: ScriptedUpstream) => (upstream.requests.at(-1)?.body as Record<string, unknown>).service_tier;

    it('Chat, priced: a whole answer served at priority is charged × priority', async () => {
      chatUp.enqueue({ json: chatAnswer('priority') });
      const answer = await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], service_tier: 'priority' });
      const row = await lastLog();
      expect({ tier: answer.service_tier, sent: sentTier(chatUp), quota: row.quota }).toEqual({ tier: 'priority', sent: 'priority', quota: 10_625 });
      expect(row.warnings.some((warning) => warning.includes('Priority'))).toBe(true);
    });

    it('Chat, priced: a stream served at priority is charged × priority', async () => {
      chatUp.enqueue({ sse: chatStream('priority') });
      const stream = await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], service_tier: 'priority', stream: true });
      for await (const chunk of stream) void chunk;
      expect({ sent: sentTier(chatUp), quota: (await lastLog()).quota }).toEqual({ sent: 'priority', quota: 10_625 });
    });

    it('Chat, priced: an answer served at the default tier is charged the standard price', async () => {
      chatUp.enqueue({ json: chatAnswer('default') });
      await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], service_tier: 'priority' });
      expect((await lastLog()).quota).toBe(standard4o);
    });

    it('Chat, priced: the reservation is at priority (a key covering the standard reservation only is refused)', async () => {
      // max_tokens 1,000: the standard reservation (≈ 5,000 units) fits the key's 8,000; at ×1.7 it does not.
      const small = new OpenAI({ apiKey: smallKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const body = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'hello' }], max_tokens: 1000 };
      const before = chatUp.requests.length;
      const priority = await small.chat.completions.create({ ...body, service_tier: 'priority' }).then(() => 200, (error: { status: number }) => error.status);
      const upstreamCalls = chatUp.requests.length - before;
      chatUp.enqueue({ json: chatAnswer('default') });
      const plain = await small.chat.completions.create(body).then(() => 200, (error: { status: number }) => error.status);
      expect({ priority, upstreamCalls, plain }).toEqual({ priority: 402, upstreamCalls: 0, plain: 200 });
    });

    it('Chat, unpriced: the tier is not sent upstream, the answer is charged standard, the log says why', async () => {
      chatUp.enqueue({ json: { ...chatAnswer('default'), model: 'gpt-4o-mini' } });
      await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], service_tier: 'priority' });
      const row = await lastLog();
      expect({ sent: sentTier(chatUp), quota: row.quota }).toEqual({ sent: undefined, quota: standard4o });
      expect(row.warnings).toContain('service_tier "priority" is not sent upstream: the model\'s price names no priority multiplier');
    });

    it('Chat: flex passes unchanged and is charged standard, even at a price that names priority', async () => {
      chatUp.enqueue({ json: chatAnswer('flex') });
      await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], service_tier: 'flex' });
      expect({ sent: sentTier(chatUp), quota: (await lastLog()).quota }).toEqual({ sent: 'flex', quota: standard4o });
    });

    it('Chat: an answer served at priority that was not asked for is charged standard', async () => {
      chatUp.enqueue({ json: chatAnswer('priority') });
      await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], service_tier: 'auto' });
      expect({ sent: sentTier(chatUp), quota: (await lastLog()).quota }).toEqual({ sent: 'auto', quota: standard4o });
    });

    // gpt-5 at $2 / $8 × 2: 1,000 + 1,000 tokens = 10,000 $ per 1M × 2 × 0.5 units.
    it('Responses, priced: a whole answer and a stream served at priority are charged × priority', async () => {
      responsesUp.enqueue({ json: responsesAnswer('gpt-5', 'priority') });
      await sdk.responses.create({ model: 'gpt-5', input: 'hello', service_tier: 'priority' });
      const whole = { sent: sentTier(responsesUp), quota: (await lastLog()).quota };
      const completed = responsesAnswer('gpt-5', 'priority');
      responsesUp.enqueue({
        sse: [
          { event: 'response.created', data: { type: 'response.created', sequence_number: 0, response: { ...completed, status: 'in_progress', output: [], usage: null } } },
          { event: 'response.output_text.delta', data: { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'hi' } },
          { event: 'response.completed', data: { type: 'response.completed', sequence_number: 2, response: completed } },
        ],
      });
      const stream = await sdk.responses.create({ model: 'gpt-5', input: 'hello', service_tier: 'priority', stream: true });
      for await (const event of stream) void event;
      const streamed = { sent: sentTier(responsesUp), quota: (await lastLog()).quota };
      expect({ whole, streamed }).toEqual({ whole: { sent: 'priority', quota: 10_000 }, streamed: { sent: 'priority', quota: 10_000 } });
    });

    it('Responses, unpriced: the tier is not sent upstream and the answer is charged standard', async () => {
      responsesUp.enqueue({ json: responsesAnswer('gpt-4.1', 'default') });
      await sdk.responses.create({ model: 'gpt-4.1', input: 'hello', service_tier: 'priority' });
      const row = await lastLog();
      expect({ sent: sentTier(responsesUp), quota: row.quota }).toEqual({ sent: undefined, quota: 5_000 });
      expect(row.warnings).toContain('service_tier "priority" is not sent upstream: the model\'s price names no priority multiplier');
    });

    it('Chat, priced: `fast` (OpenAI serves and bills it as Priority) is sent as asked and charged × priority', async () => {
      chatUp.enqueue({ json: chatAnswer('priority') });
      const answer = await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], service_tier: 'fast' as never });
      const row = await lastLog();
      expect({ tier: answer.service_tier, sent: sentTier(chatUp), quota: row.quota }).toEqual({ tier: 'priority', sent: 'fast', quota: 10_625 });
    });

    it('Responses, priced: a tier the gateway cannot price (`ultrafast`) is not sent upstream and is charged standard', async () => {
      responsesUp.enqueue({ json: responsesAnswer('gpt-5', 'default') });
      await sdk.responses.create({ model: 'gpt-5', input: 'hello', service_tier: 'ultrafast' as never });
      const row = await lastLog();
      expect({ sent: sentTier(responsesUp), quota: row.quota }).toEqual({ sent: undefined, quota: 5_000 });
      expect(row.warnings).toContain('service_tier "ultrafast" is not sent upstream: the gateway has no price for that tier');
    });

    it('admin: priority is set, shown, refused below 1 or alone, and cleared with null', async () => {
      expect((await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'low', input: 1, priority: 0.5 } })).status).toBe(400);
      expect((await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'alone', priority: 2 } })).status).toBe(400);
      const created = await callAdmin(gateway, 'POST', '/api/admin/prices', { body: { model: 'tiered', input: 1, priority: 1.75 } });
      expect({ status: created.status, priority: created.body.data.priority }).toEqual({ status: 200, priority: 1.75 });
      const cleared = await callAdmin(gateway, 'PUT', '/api/admin/prices/tiered', { body: { priority: null } });
      expect({ status: cleared.status, priority: cleared.body.data.priority }).toEqual({ status: 200, priority: null });
    });
  });
}
