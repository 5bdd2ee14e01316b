/**
 * A stream sent with OpenAI's `service_tier: "priority"` that ends before its usage report (the upstream
 * cuts it, or the client leaves) is billed by a local count, and at the tier OpenAI served — and bills — it
 * at: the tier its earliest event named (a Responses stream's `response.created`, a Chat stream's first
 * chunk), else, when none named one, the tier the request asked for. It was charged the standard price:
 * the tier was read only from `response.completed`, the event a cut stream never reaches
 * (docs/behaviour.md "OpenAI's Priority processing"). Through the openai SDK, on every database.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream, type SseEvent } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { callerKey, channelConfig } from './billing-fixture.js';

/** $ per 1M tokens; 500,000 quota units per $. gpt-4o (Chat channel) and gpt-5 (Responses channel) price the tier. */
const prices = {
  'gpt-4o': { input: 2.5, output: 10, priority: 1.7 },
  'gpt-5': { input: 2, output: 8, priority: 2 },
};
/** Quota units for `input` + `output` tokens (rounded half up), at the tier's multiplier or not. */
const charge = {
  'gpt-4o': (input: number, output: number, multiplier: number) => Math.round((2.5 * input + 10 * output) * 0.5 * multiplier),
  'gpt-5': (input: number, output: number, multiplier: number) => Math.round((2 * input + 8 * output) * 0.5 * multiplier),
};

/** A Responses stream's opening, a message and its text; `tier` on the response object unless undefined. */
function responsesOpening(tier: string | undefined): SseEvent[] {
  const response = { id: 'resp_cut', object: 'response', created_at: 1, status: 'in_progress', model: 'gpt-5', output: [], usage: null, error: null, incomplete_details: null, ...(tier === undefined ? {} : { service_tier: tier }) };
  let seq = 0;
  const ev = (data: Record<string, unknown>) => ({ event: String(data.type), data: { ...data, sequence_number: seq++ } });
  return [
    ev({ type: 'response.created', response }),
    ev({ type: 'response.in_progress', response }),
    ev({ type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
    ev({ type: 'response.content_part.added', output_index: 0, item_id: 'msg_1', content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
    ev({ type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Priority answers come' }),
    ev({ type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', content_index: 0, delta: ' faster than standard ones' }),
  ];
}

/** Chat chunks with text and no usage report; `tier` on every chunk unless undefined. */
function chatChunks(tier: string | undefined): SseEvent[] {
  const base = { id: 'c_cut', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', ...(tier === undefined ? {} : { service_tier: tier }) };
  return [
    { data: { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }], usage: null } },
    { data: { ...base, choices: [{ index: 0, delta: { content: 'Priority answers come' }, finish_reason: null }], usage: null } },
    { data: { ...base, choices: [{ index: 0, delta: { content: ' faster than standard ones' }, finish_reason: null }], usage: null } },
  ];
}

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`service_tier "priority", stream cut before its usage, on ${dialect}`, () => {
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
          channels: [channelConfig('chat', 'openai-chat', chatUp.url, 1, ['gpt-4o']), channelConfig('responses', 'openai-responses', responsesUp.url, 1, ['gpt-5'])],
          users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 1_000_000_000 }],
          tokens: [{ name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, quota: 1_000_000_000 }],
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

    /** The last request's log row, once settled, with its reservation and the token wallet checked against its charge. */
    async function settledRow(run: () => Promise<void>) {
      const db = gateway.gateway.services.database.db;
      const usedBefore = Number((await db.selectFrom('tokens').select('used_quota').where('name', '=', 'payer-key').executeTakeFirstOrThrow()).used_quota);
      await run().catch(() => undefined);
      // A client that left is settled once its socket closed.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await gateway.settled();
      const row = (await db.selectFrom('logs').selectAll().orderBy('id').execute()).at(-1)!;
      const reservation = await db.selectFrom('quota_reservations').select(['state', 'settled_amount']).where('id', '=', row.request_id).executeTakeFirstOrThrow();
      const usedAfter = Number((await db.selectFrom('tokens').select('used_quota').where('name', '=', 'payer-key').executeTakeFirstOrThrow()).used_quota);
      const quota = Number(row.quota);
      expect({ state: reservation.state, settled: Number(reservation.settled_amount), wallet: usedAfter - usedBefore }).toEqual({ state: 'settled', settled: quota, wallet: quota });
      return { quota, input: Number(row.input_tokens), output: Number(row.output_tokens), source: row.usage_source, warnings: JSON.parse(String(row.warnings)) as string[] };
    }

    /** The openai SDK's Responses stream, read to its end (or its error), or left at its first text. */
    const responsesStream = (leaveAtText: boolean) => async () => {
      const stream = await sdk.responses.create({ model: 'gpt-5', input: 'Why pay for priority?', service_tier: 'priority', stream: true });
      for await (const event of stream) {
        if (leaveAtText && event.type === 'response.output_text.delta') return stream.controller.abort();
      }
    };
    const chatStream = (model: string) => async () => {
      const stream = await sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'Why pay for priority?' }], service_tier: 'priority', stream: true });
      for await (const chunk of stream) void chunk;
    };

    it('Responses: the upstream resets after response.created named priority and some text: charged × priority', async () => {
      responsesUp.enqueue({ sse: responsesOpening('priority'), ending: 'reset', endDelayMs: 50 });
      const row = await settledRow(responsesStream(false));
      expect({ source: row.source, quota: row.quota }).toEqual({ source: 'local', quota: charge['gpt-5'](row.input, row.output, 2) });
      expect(row.output).toBeGreaterThan(0);
      expect(row.warnings.some((warning) => warning.startsWith('service_tier "priority"'))).toBe(true);
    });

    it('Responses: the client leaves at the first text after response.created named priority: charged × priority', async () => {
      responsesUp.enqueue({ sse: responsesOpening('priority'), delayMs: 20, ending: 'hang' });
      const row = await settledRow(responsesStream(true));
      expect({ source: row.source, quota: row.quota }).toEqual({ source: 'local', quota: charge['gpt-5'](row.input, row.output, 2) });
    });

    it('Responses: a stream whose opening names no tier, cut: charged at the tier asked for', async () => {
      responsesUp.enqueue({ sse: responsesOpening(undefined), ending: 'reset', endDelayMs: 50 });
      const row = await settledRow(responsesStream(false));
      expect({ source: row.source, quota: row.quota }).toEqual({ source: 'local', quota: charge['gpt-5'](row.input, row.output, 2) });
      expect(row.warnings.some((warning) => warning.includes('before any event named its tier'))).toBe(true);
    });

    it('Responses: a stream whose opening says it was served at the default tier, cut: charged standard', async () => {
      responsesUp.enqueue({ sse: responsesOpening('default'), ending: 'reset', endDelayMs: 50 });
      const row = await settledRow(responsesStream(false));
      expect({ source: row.source, quota: row.quota }).toEqual({ source: 'local', quota: charge['gpt-5'](row.input, row.output, 1) });
    });

    it('Chat: the upstream resets after chunks naming priority, before the usage chunk: charged × priority', async () => {
      chatUp.enqueue({ sse: chatChunks('priority'), ending: 'reset', endDelayMs: 50 });
      const row = await settledRow(chatStream('gpt-4o'));
      expect({ source: row.source, quota: row.quota }).toEqual({ source: 'local', quota: charge['gpt-4o'](row.input, row.output, 1.7) });
    });

    it('Chat: chunks that name no tier, cut: charged at the tier asked for', async () => {
      chatUp.enqueue({ sse: chatChunks(undefined), ending: 'reset', endDelayMs: 50 });
      const row = await settledRow(chatStream('gpt-4o'));
      expect({ source: row.source, quota: row.quota }).toEqual({ source: 'local', quota: charge['gpt-4o'](row.input, row.output, 1.7) });
    });

    it('a Chat request converted for the Responses channel does not carry the tier: cut, it is charged standard', async () => {
      responsesUp.enqueue({ sse: responsesOpening(undefined), ending: 'reset', endDelayMs: 50 });
      const row = await settledRow(chatStream('gpt-5'));
      const sent = (responsesUp.requests.at(-1)?.body as Record<string, unknown>).service_tier;
      expect({ sent, source: row.source, quota: row.quota }).toEqual({ sent: undefined, source: 'local', quota: charge['gpt-5'](row.input, row.output, 1) });
    });
  });
}
