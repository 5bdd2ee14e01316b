/**
 * From the limits audit: the video download (free, but it streams from the operator's upstream account)
 * counts against the key's rpm; the 429 of every style and framing carries Retry-After and x-ratelimit-*
 * headers that agree with each other, in its own envelope, with no upstream call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startVideosFixture, type VideosFixture } from '../videos/videos-fixture.js';
import { durationSeconds, rawRequest, startLimitsFixture, styles, type LimitsFixture } from './limits-fixture.js';
import { testAdminKey } from '../support/start-test-gateway.js';

let videos: VideosFixture | undefined;
let f: LimitsFixture | undefined;
afterEach(async () => {
  await videos?.close();
  videos = undefined;
  await f?.close();
  f = undefined;
});

async function setTokenRpm(url: string, name: string, rpm: number): Promise<void> {
  const list = (await (await fetch(`${url}/api/admin/tokens?page_size=100`, { headers: { authorization: `Bearer ${testAdminKey}` } })).json()) as { data: { items: { id: number; name: string }[] } };
  const id = list.data.items.find((token) => token.name === name)?.id;
  const put = await fetch(`${url}/api/admin/tokens/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ rate_limit: { rpm } }) });
  expect(put.status).toBe(200);
}

describe('routes that cost no quota but call an upstream count against the rpm windows (docs/behaviour.md "Rate limits")', () => {
  it('GET /v1/videos/{id}/content (streams the upstream\'s content, no quota) counts one request against the key\'s rpm', async () => {
    videos = await startVideosFixture();
    const video = await videos.client.videos.create({ model: 'sora-2', prompt: 'Waves at dusk', seconds: '4' });
    const upstreamId = (await videos.task(video.id))!.upstream_id!;
    videos.sora.advance(upstreamId, { status: 'completed', expires_at: 1_900_000_000 });
    videos.advanceClock(1);
    await videos.poll();
    // From here the key may make 2 requests a minute (a fresh window: the clock moves past the submit's).
    await setTokenRpm(videos.gateway.url, 'director-key', 2);
    await videos.gateway.gateway.services.catalog.changed();
    videos.advanceClock(61_000);
    const token = [...videos.gateway.gateway.services.catalog.snapshot.tokensById.values()].find((record) => record.name === 'director-key');
    expect(token?.rateLimit).toEqual({ rpm: 2 });
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      const response = await videos.fetch(`/v1/videos/${video.id}/content`);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    const downloads = videos.sora.requests.filter((request) => request.path.startsWith(`/v1/videos/${upstreamId}/content`)).length;
    expect(statuses, `${downloads} upstream downloads made for 4 requests on a 2 rpm key`).toEqual([200, 200, 429, 429]);
  });
});

describe('the 429 of every style carries Retry-After and x-ratelimit-* consistent with each other', () => {
  for (const style of styles) {
    for (const stream of [false, true]) {
      it(`${style}${stream ? ' (stream)' : ''}`, async () => {
        f = await startLimitsFixture({ tokenRateLimit: { rpm: 1, tpm: 100_000 } });
        const ok = await rawRequest(f.url, style, { stream, maxTokens: 50 });
        await ok.text();
        expect(ok.status).toBe(200);
        expect(ok.headers.get('x-ratelimit-remaining-requests')).toBe('0');
        f.advance(20_000);
        const refused = await rawRequest(f.url, style, { stream, maxTokens: 50 });
        const body = await refused.json();
        expect(refused.status).toBe(429);
        const retry = Number(refused.headers.get('retry-after'));
        expect(retry).toBeGreaterThanOrEqual(39);
        expect(retry).toBeLessThanOrEqual(40);
        expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('1');
        expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
        expect(durationSeconds(refused.headers.get('x-ratelimit-reset-requests'))).toBe(retry);
        expect(Number(refused.headers.get('x-ratelimit-remaining-tokens'))).toBeGreaterThanOrEqual(0);
        if (style === 'anthropic') expect(body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
        else if (style === 'gemini') expect(body).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
        else expect(body).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
        expect(f.upstreamCalls()).toBe(1);
      });
    }
  }
});
