/**
 * From the logs audit (session 30). An async video task's rows: the submit's charge, then its refund when the task fails. The rows must add
 * up to the wallets (token, user, channel) on every database, the refund row must read with the submit's
 * (same request id, same model as the submit's row, so per-model usage nets to zero), and
 * `/api/admin/logs/usage` must net the refund. A 402 at admission writes no row and charges nothing.
 * The usage counts requests made: the refund row is in its quota but not in its `requests` (it counted
 * as a second request, on the refund's day or beside the submit's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDialects } from '../support/test-databases.js';
import { clientKey, expectedCharge, smallKey, startVideosFixture, type VideosFixture } from '../videos/videos-fixture.js';

describe.each(allDialects)('video task rows on $dialect', ({ dialect, available }) => {
  let fixture: VideosFixture;
  beforeAll(async () => {
    if (!available) return;
    fixture = await startVideosFixture({ dialect });
  });
  afterAll(async () => {
    if (available) await fixture.close();
  });

  const admin = async (path: string) => {
    const response = await fetch(`${fixture.gateway.url}/api/admin${path}`, { headers: { authorization: `Bearer ${fixture.gateway.adminKey}` } });
    return (await response.json()) as any;
  };

  it.skipIf(!available)('submit (via an alias) then failure: two rows, netting to zero on every wallet and in the usage', async () => {
    const { db } = fixture.gateway.gateway.services.database;
    const response = await fixture.fetch('/v1/videos', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-alias', prompt: 'doomed', seconds: '8' }) });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    const video = (await response.json()) as any;
    const charge = expectedCharge('sora-alias', 8);
    expect(await fixture.tokenUsed()).toBe(charge);
    const task = await fixture.task(video.id);
    fixture.sora.advance(task?.upstream_id as string, { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } });
    // The refund happens a UTC day later.
    fixture.advanceClock(86_400_000);
    await fixture.poll();
    expect(await fixture.tokenUsed()).toBe(0);
    const rows = (await fixture.logs()).filter((row) => row.request_id === requestId);
    console.log(rows.map((row) => ({ style: row.style, model: row.model, upstream: row.upstream_model, quota: row.quota, channel: row.channel_id, status: row.status, created: row.created_at })));
    expect(rows.map((row) => Number(row.quota))).toEqual([charge, -charge]);
    expect(rows[1]!.style).toBe('task-refund');
    expect(rows[1]!.usage_source).toBe('refund');
    // The refund row reads with the submit's: same model column.
    expect(rows[1]!.model).toBe(rows[0]!.model);
    // Wallet sums.
    const all = await fixture.logs();
    const tokens = await db.selectFrom('tokens').select(['id', 'used_quota', 'user_id']).execute();
    for (const token of tokens) expect(all.filter((row) => Number(row.token_id) === Number(token.id)).reduce((sum, row) => sum + Number(row.quota), 0)).toBe(Number(token.used_quota));
    const users = await db.selectFrom('users').select(['id', 'used_quota']).execute();
    for (const user of users) expect(all.filter((row) => Number(row.user_id) === Number(user.id)).reduce((sum, row) => sum + Number(row.quota), 0)).toBe(Number(user.used_quota));
    const channels = await db.selectFrom('channels').select(['id', 'used_quota']).execute();
    for (const channel of channels) expect(all.filter((row) => Number(row.channel_id) === Number(channel.id)).reduce((sum, row) => sum + Number(row.quota), 0)).toBe(Number(channel.used_quota));
    // The usage: per model, the days net to zero.
    const usage = (await admin(`/logs/usage?token_id=${rows[0]!.token_id}`)).data as any[];
    const perModel = new Map<string, number>();
    for (const entry of usage) perModel.set(entry.model, (perModel.get(entry.model) ?? 0) + entry.quota);
    expect(Object.fromEntries(perModel)).toEqual({ [rows[0]!.model as string]: 0 });
    // One request made: the submit's day counts it, the refund's day (a day later) counts none and gives the charge back.
    const submitDay = new Date(Number(rows[0]!.created_at)).toISOString().slice(0, 10);
    const refundDay = new Date(Number(rows[1]!.created_at)).toISOString().slice(0, 10);
    expect(refundDay).not.toBe(submitDay);
    expect(usage.map((entry) => ({ day: entry.day, requests: entry.requests, quota: entry.quota }))).toEqual([
      { day: submitDay, requests: 1, quota: charge },
      { day: refundDay, requests: 0, quota: -charge },
    ]);
    // By request id, the admin API answers both rows.
    expect((await admin(`/logs?request_id=${requestId}`)).data.total).toBe(2);
  });

  it.skipIf(!available)('a task refunded the day it was submitted: one day of usage, one request, nothing kept', async () => {
    // A day of its own, away from the rows of the test above.
    fixture.advanceClock(2 * 86_400_000);
    const response = await fixture.fetch('/v1/videos', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'doomed too', seconds: '4' }) });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    const video = (await response.json()) as any;
    const task = await fixture.task(video.id);
    fixture.sora.advance(task?.upstream_id as string, { status: 'failed', error: { code: 'internal_error', message: 'Render farm on fire.' } });
    await fixture.poll();
    // The submit's row first: the refund's row commits with the refund, which may come before the log
    // writer's batch with the submit's row (here the poll follows the submit at once).
    const isRefund = (row: { style: string }) => Number(row.style === 'task-refund');
    const rows = (await fixture.logs()).filter((row) => row.request_id === requestId).sort((a, b) => isRefund(a) - isRefund(b));
    expect(rows.map((row) => row.style)).toEqual([expect.not.stringMatching(/^task-refund$/), 'task-refund']);
    const day = new Date(Number(rows[0]!.created_at)).toISOString().slice(0, 10);
    expect(new Date(Number(rows[1]!.created_at)).toISOString().slice(0, 10)).toBe(day);
    const from = Number(rows[0]!.created_at) - (Number(rows[0]!.created_at) % 86_400_000);
    const usage = (await admin(`/logs/usage?token_id=${rows[0]!.token_id}&start=${from}&end=${from + 86_400_000}`)).data as any[];
    expect(usage).toEqual([{ day, model: rows[0]!.model, requests: 1, quota: 0, input_tokens: Number(rows[0]!.input_tokens), output_tokens: Number(rows[0]!.output_tokens) }]);
  });

  it.skipIf(!available)('a 402 at admission: no row, nothing charged', async () => {
    const before = (await fixture.logs()).length;
    const usedBefore = await fixture.tokenUsed('small-key');
    const response = await fixture.fetch('/v1/videos', { key: smallKey, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'too long', seconds: '12' }) });
    expect(response.status).toBe(402);
    expect((await fixture.logs()).length).toBe(before);
    expect(await fixture.tokenUsed('small-key')).toBe(usedBefore);
    void clientKey;
  });
});
