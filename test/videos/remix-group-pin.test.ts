/**
 * From the auth audit: a remix is pinned to the channel that made the origin video (run-video-remix.ts),
 * but a route's pin keeps the caller's group (select-channel.ts): only an admin's own `sk-…-<id>` pin
 * reaches a channel whatever its groups. A channel restricted to another group since is not called.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVideosFixture, type VideosFixture } from '../videos/videos-fixture.js';

let fixture: VideosFixture;
beforeAll(async () => {
  fixture = await startVideosFixture({ dialect: 'sqlite' });
});
afterAll(async () => fixture?.close());

const admin = (path: string, method: string, body?: unknown) =>
  fetch(`${fixture.gateway.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${fixture.gateway.adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('remix after the channel left the caller’s group', () => {
  it('is refused (the plain user’s group reaches no channel of the origin), and the closed channel is not called', async () => {
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'origin' });
    const task = await fixture.task(video.id);
    fixture.sora.advance(task?.upstream_id as string, { status: 'completed' });
    fixture.advanceClock(1);
    await fixture.poll();

    // The operator closes the channel to the `default` group (now only for `vip`).
    expect((await admin('/groups', 'POST', { name: 'vip', ratio: 1 })).status).toBe(200);
    const channels = (await (await admin('/channels', 'GET')).json()) as { data: { items?: { id: number; name: string }[] } | { id: number; name: string }[] };
    const list = Array.isArray(channels.data) ? channels.data : (channels.data.items ?? []);
    const id = list.find((channel) => channel.name === 'sora-up')?.id;
    const put = await admin(`/channels/${id}`, 'PUT', { groups: ['vip'] });
    expect(put.status, await put.text()).toBe(200);
    // A fresh request of the user for that channel's model-only offer no longer reaches it:
    const before = fixture.sora.requests.length;
    const remix = await fixture.fetch(`/v1/videos/${video.id}/remix`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'again' }) });
    const text = await remix.text();
    expect(fixture.sora.requests.length - before, `the default-group user reached a vip-only channel: ${remix.status} ${text}`).toBe(0);
    expect(remix.status).not.toBe(200);
  });
});
