import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, expectedCharge, smallKey, smallKeyQuota, startVideosFixture, preferredDialect, type VideosFixture } from '../videos/videos-fixture.js';

/** From the balance audit (session 30): the account routes follow an async task's charge and its refund exactly. */
let fixture: VideosFixture;
beforeAll(async () => {
  fixture = await startVideosFixture({ dialect: preferredDialect() });
});
afterAll(async () => {
  await fixture?.close();
});

const get = async (key: string, path: string) => (await fixture.fetch(path, { key })).json() as Promise<any>;

describe('balances across a failed, refunded task', () => {
  it('charge then refund: usage, subscription and usage/token match the token row and the log rows', async () => {
    const granted = smallKeyQuota;
    const before = (await get(smallKey, '/api/usage/token/')).data;
    expect(before).toMatchObject({ total_granted: granted, total_used: 0, total_available: granted });
    const video = await fixture.clientWith(smallKey).videos.create({ model: 'sora-2', prompt: 'A cat', seconds: '4' });
    await fixture.gateway.settled();
    const charged = (await get(smallKey, '/api/usage/token/')).data;
    expect(charged).toMatchObject({ total_granted: granted, total_used: expectedCharge('sora-2', 4), total_available: 0 });
    expect((await get(smallKey, '/dashboard/billing/usage')).total_usage).toBe((expectedCharge('sora-2', 4) / 500_000) * 100);
    const task = await fixture.task(video.id);
    fixture.sora.advance(task!.upstream_id!, { status: 'failed', error: { code: 'x', message: 'failed upstream' } });
    fixture.advanceClock(1);
    expect((await fixture.poll()).refunded).toBe(1);
    const after = (await get(smallKey, '/api/usage/token/')).data;
    expect(after).toMatchObject({ total_granted: granted, total_used: 0, total_available: granted });
    expect(await get(smallKey, '/dashboard/billing/usage')).toEqual({ object: 'list', total_usage: 0 });
    expect((await get(smallKey, '/dashboard/billing/subscription')).hard_limit_usd).toBe(granted / 500_000);
    const logs = (await fixture.logs()).filter((row) => row.token_name === 'small-key');
    expect(logs.reduce((sum, row) => sum + Number(row.quota), 0)).toBe(0);
    // Another user's key sees none of it.
    expect((await get(clientKey, '/api/usage/token/')).data.name).toBe('director-key');
  });
});
