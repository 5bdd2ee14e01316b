/**
 * From the logs audit (session 30). The request log is exact: one row per request, its fields right, and the rows add up to the wallets
 * (token, user, channel used_quota) on every path; the admin log API's filters, paging and per-day usage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientRequest, modelOf, promptTokensExact, expectedCharge, startBillingFixture, readSse, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { chatStream, chatWhole, errorReply } from '../fakes/scripted-vendor-wire.js';
import { allDialects } from '../support/test-databases.js';

const chat = modelOf['openai-chat'];
describe.each(allDialects.filter(({ available }) => available))('the request log on $dialect', ({ dialect }) => {
  let fixture: BillingFixture;

  beforeAll(async () => {
    fixture = await startBillingFixture({ tokenQuota: 10_000_000, userQuota: 10_000_000, fallbacks: true, dialect });
  });
  afterAll(async () => fixture?.close());

  async function send(style: Parameters<typeof buildClientRequest>[1], model: string, stream: boolean) {
    const { url, init } = buildClientRequest(fixture.gateway.url, style, model, stream, 100);
    const response = await fetch(url, init);
    const body = await response.text();
    return { response, body, requestId: response.headers.get('x-request-id') };
  }

  async function rowsOf(requestId: string | null) {
    await fixture.settled();
    const rows = await fixture.logs();
    return rows.filter((row: any) => row.request_id === requestId);
  }

  async function admin(path: string) {
    const response = await fetch(`${fixture.gateway.url}/api/admin${path}`, { headers: { authorization: `Bearer ${fixture.gateway.adminKey}` } });
    return { status: response.status, json: (await response.json()) as any };
  }

  describe('one exact row per request', () => {
    it('whole Chat: one row, fields as billed, request id as the client got it', async () => {
      fixture.primary['openai-chat'].enqueue(chatWhole({ text: 'Hello there', usage: { input: 12, output: 3 } }));
      const { response, requestId } = await send('openai-chat', chat, false);
      expect(response.status).toBe(200);
      const rows = await rowsOf(requestId);
      expect(rows).toHaveLength(1);
      const row = rows[0];
      expect(row).toMatchObject({ status: 200, is_stream: 0, model: chat, usage_source: 'upstream', input_tokens: 12, output_tokens: 3, quota: expectedCharge({ input: 12, output: 3 }), channel_id: fixture.channelIds['primary-openai-chat'], error: null });
      expect(Number(row.latency_ms)).toBeGreaterThanOrEqual(0);
    });

    it('streamed Chat: is_stream, first token time within the latency', async () => {
      fixture.primary['openai-chat'].enqueue(chatStream({ text: ['Hel', 'lo'], usage: { input: 12, output: 2 } }));
      const { response, requestId } = await send('openai-chat', chat, true);
      expect(response.status).toBe(200);
      const rows = await rowsOf(requestId);
      expect(rows).toHaveLength(1);
      const row = rows[0];
      expect(row).toMatchObject({ status: 200, is_stream: 1, usage_source: 'upstream', input_tokens: 12, output_tokens: 2, quota: expectedCharge({ input: 12, output: 2 }) });
      expect(row.first_token_ms).not.toBeNull();
      expect(Number(row.first_token_ms)).toBeLessThanOrEqual(Number(row.latency_ms));
    });

    it('Anthropic client on a Chat upstream: one row, style anthropic-messages, request-id header matches', async () => {
      fixture.primary['openai-chat'].enqueue(chatWhole({ text: 'Hello', usage: { input: 9, output: 1 } }));
      const { response, requestId } = await send('anthropic', chat, false);
      expect(response.status).toBe(200);
      expect(response.headers.get('request-id')).toBe(requestId);
      const rows = await rowsOf(requestId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ style: 'anthropic-messages', path: '/v1/messages', input_tokens: 9, output_tokens: 1, quota: expectedCharge({ input: 9, output: 1 }) });
    });

    it('failover after a 500: one row, the serving channel, both attempts recorded', async () => {
      fixture.primary['openai-chat'].enqueue(errorReply('openai-chat', 500, 'boom'));
      fixture.fallback!['openai-chat'].enqueue(chatWhole({ text: 'Hello', usage: { input: 7, output: 1 } }));
      const { response, requestId } = await send('openai-chat', chat, false);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-relay-channel-id')).toBe(String(fixture.channelIds['fallback-openai-chat']));
      const rows = await rowsOf(requestId);
      expect(rows).toHaveLength(1);
      const attempts = JSON.parse(rows[0].attempts);
      expect(rows[0].channel_id).toBe(fixture.channelIds['fallback-openai-chat']);
      expect(attempts.map((a: any) => [a.channel_id, a.status])).toEqual([[fixture.channelIds['primary-openai-chat'], 500], [fixture.channelIds['fallback-openai-chat'], 200]]);
      expect(rows[0].quota).toBe(expectedCharge({ input: 7, output: 1 }));
    });

    it('a 429 then success on the fallback: one row', async () => {
      fixture.primary['openai-chat'].enqueue({ ...errorReply('openai-chat', 429, 'slow down'), headers: { 'retry-after': '0' } });
      fixture.fallback!['openai-chat'].enqueue(chatWhole({ text: 'Hello', usage: { input: 7, output: 1 } }));
      const { response, requestId } = await send('openai-chat', chat, false);
      expect(response.status).toBe(200);
      const rows = await rowsOf(requestId);
      expect(rows).toHaveLength(1);
      expect(JSON.parse(rows[0].attempts).map((a: any) => a.status)).toEqual([429, 200]);
    });

    it('an upstream 400 relayed: one row, status 400, nothing charged, the error text', async () => {
      fixture.primary['openai-chat'].enqueue(errorReply('openai-chat', 400, 'bad thing in the request'));
      const { response, requestId } = await send('openai-chat', chat, false);
      expect(response.status).toBe(400);
      expect(requestId).not.toBeNull();
      const rows = await rowsOf(requestId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 400, quota: 0, usage_source: 'none' });
      expect(String(rows[0].error)).toContain('bad thing');
    });

    it('every channel fails (500s): one row, status 5xx, nothing charged', async () => {
      fixture.primary['openai-chat'].enqueue(errorReply('openai-chat', 500, 'a'));
      fixture.fallback!['openai-chat'].enqueue(errorReply('openai-chat', 500, 'b'));
      const { response, requestId } = await send('openai-chat', chat, false);
      expect(response.status).toBeGreaterThanOrEqual(500);
      const rows = await rowsOf(requestId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: response.status, quota: 0 });
    });

    it('client disconnect mid-stream: one row, 499, billed locally', async () => {
      const slow = { ...chatStream({ text: ['Hello', ' there', ' my', ' friend', ' again'], usage: { input: 12, output: 9 } }), delayMs: 300 };
      fixture.primary['openai-chat'].clearQueue();
      fixture.fallback!['openai-chat'].clearQueue();
      fixture.primary['openai-chat'].enqueue(slow);
      fixture.fallback!['openai-chat'].enqueue(slow);
      const controller = new AbortController();
      const { url, init } = buildClientRequest(fixture.gateway.url, 'openai-chat', chat, true, 100, controller.signal);
      const response = await fetch(url, init);
      const requestId = response.headers.get('x-request-id');
      await readSse(response, 'openai-chat', (text) => text.length > 0);
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const rows = await rowsOf(requestId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 499, is_stream: 1, usage_source: 'local' });
      expect(rows[0].quota).toBeGreaterThan(0);
      expect(rows[0].error).toBe('client disconnected');
      expect(rows[0].input_tokens).toBe(promptTokensExact());
    });
  });

  describe('the rows add up to the wallets', () => {
    it('sum of rows = token used = user used; per channel = channel used_quota', async () => {
      await fixture.settled();
      const rows = await fixture.logs();
      const balances = await fixture.balances();
      const sum = rows.reduce((total: number, row: any) => total + Number(row.quota), 0);
      expect(sum).toBe(balances.tokenUsed);
      expect(sum).toBe(balances.userUsed);
      const channels = await fixture.channels();
      for (const channel of channels) {
        const ofChannel = rows.filter((row: any) => row.channel_id === channel.id).reduce((total: number, row: any) => total + Number(row.quota), 0);
        expect(ofChannel, `channel ${channel.name}`).toBe(channel.used_quota);
      }
      // Request ids unique.
      expect(new Set(rows.map((row: any) => row.request_id)).size).toBe(rows.length);
    });
  });

  describe('admin log API', () => {
    it('filters: request_id, channel_id, status, model, token_id, user_id', async () => {
      const all = await fixture.logs();
      const first = all[0];
      const byId = await admin(`/logs?request_id=${encodeURIComponent(first.request_id)}`);
      expect(byId.status).toBe(200);
      expect(byId.json.data.items.map((item: any) => item.request_id)).toEqual([first.request_id]);
      const byStatus = await admin('/logs?status=499');
      expect(byStatus.json.data.total).toBe(all.filter((row: any) => row.status === 499).length);
      const byChannel = await admin(`/logs?channel_id=${fixture.channelIds['fallback-openai-chat']}&page_size=100`);
      expect(byChannel.json.data.total).toBe(all.filter((row: any) => row.channel_id === fixture.channelIds['fallback-openai-chat']).length);
      const byToken = await admin(`/logs?token_id=${first.token_id}&user_id=${first.user_id}&model=${chat}`);
      expect(byToken.json.data.total).toBe(all.filter((row: any) => row.model === chat).length);
      const window = await admin(`/logs?start=${first.created_at}&end=${Number(first.created_at) + 1}`);
      expect(window.json.data.items.every((item: any) => Number(item.created_at) === Number(first.created_at))).toBe(true);
    });

    it('paging: pages of 1 cover every row once; out-of-range values', async () => {
      const all = await fixture.logs();
      const seen: string[] = [];
      for (let page = 1; page <= all.length + 1; page += 1) {
        const { json } = await admin(`/logs?p=${page}&page_size=1`);
        seen.push(...json.data.items.map((item: any) => item.request_id));
      }
      expect(seen.length).toBe(all.length);
      expect(new Set(seen).size).toBe(all.length);
      expect((await admin('/logs?p=0')).status).toBe(400);
      expect((await admin('/logs?page_size=0')).status).toBe(400);
      expect((await admin('/logs?page_size=-5')).status).toBe(400);
      expect((await admin('/logs?page_size=abc')).status).toBe(400);
      const big = await admin('/logs?page_size=100000');
      expect(big.status).toBe(200);
      expect(big.json.data.page_size).toBe(100);
      const far = await admin('/logs?p=999999999999999&page_size=100');
      expect(far.status).toBe(200);
      expect(far.json.data.items).toEqual([]);
    });

    it('usage per model per day equals the rows', async () => {
      const all = await fixture.logs();
      const { status, json } = await admin('/logs/usage');
      expect(status).toBe(200);
      const usage = json.data as any[];
      const requests = usage.reduce((total, entry) => total + entry.requests, 0);
      const quota = usage.reduce((total, entry) => total + entry.quota, 0);
      expect(requests).toBe(all.length);
      expect(quota).toBe(all.reduce((total: number, row: any) => total + Number(row.quota), 0));
      const day = new Date(Number(all[0].created_at)).toISOString().slice(0, 10);
      expect(usage.map((entry) => entry.day)).toContain(day);
    });
  });
});
