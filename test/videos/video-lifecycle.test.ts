import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, expectedCharge, startVideosFixture, upstreamKeys, type VideosFixture } from './videos-fixture.js';

let fixture: VideosFixture;

beforeAll(async () => {
  fixture = await startVideosFixture();
});
afterAll(async () => {
  await fixture.close();
});

/** The upstream id behind a public task id, read from the row (clients never see it). */
async function upstreamIdOf(publicId: string): Promise<string> {
  const task = await fixture.task(publicId);
  if (task?.upstream_id === null || task === undefined) throw new Error(`no upstream id for ${publicId}`);
  return task.upstream_id;
}

describe('a video task from submit to download (OpenAI SDK)', () => {
  it('submits as a form, hides the upstream id, and charges per second of clip', async () => {
    const { result: video, charge } = await fixture.charged(() => fixture.client.videos.create({ model: 'sora-2', prompt: 'A calico cat plays a piano on stage', seconds: '8', size: '1280x720' }));
    expect(video.id).toMatch(/^task_[A-Za-z0-9]{32}$/);
    expect(video).toMatchObject({ object: 'video', model: 'sora-2', status: 'queued', progress: 0, seconds: '8', size: '1280x720' });
    expect(JSON.stringify(video)).not.toContain('video_');
    expect(charge).toBe(expectedCharge('sora-2', 8));

    const submitted = fixture.sora.requests.at(-1);
    expect(submitted?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(submitted?.fields).toMatchObject({ model: 'sora-2', prompt: 'A calico cat plays a piano on stage', seconds: '8', size: '1280x720' });

    const task = await fixture.task(video.id);
    expect(task).toMatchObject({ status: 'queued', quota: expectedCharge('sora-2', 8), refunded: 0, kind: 'video' });
    const submitLog = (await fixture.logs()).at(-1);
    expect(submitLog).toMatchObject({ style: 'openai-videos', model: 'sora-2', quota: expectedCharge('sora-2', 8), status: 200, path: '/v1/videos' });
  });

  it('reports progress as the poll loop sees it, then serves the finished video byte for byte', async () => {
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'Waves at dusk', seconds: '4' });
    const upstreamId = await upstreamIdOf(video.id);
    expect((await fixture.client.videos.retrieve(video.id)).status).toBe('queued');

    fixture.sora.advance(upstreamId, { status: 'in_progress', progress: 40 });
    fixture.advanceClock(1);
    await fixture.poll();
    expect(await fixture.client.videos.retrieve(video.id)).toMatchObject({ id: video.id, status: 'in_progress', progress: 40 });

    fixture.sora.advance(upstreamId, { status: 'completed', expires_at: 1_900_000_000 });
    fixture.advanceClock(1);
    const before = await fixture.tokenUsed();
    await fixture.poll();
    const done = await fixture.client.videos.retrieve(video.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100, expires_at: 1_900_000_000 });
    expect(done.completed_at).toEqual(expect.any(Number));
    expect((done as unknown as { video_url: string }).video_url).toBe(`${fixture.gateway.url}/v1/videos/${video.id}/content`);
    // Finishing costs nothing more: the charge was settled at submit.
    expect(await fixture.tokenUsed()).toBe(before);

    const content = await fixture.client.videos.downloadContent(video.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.equals(fixture.sora.contentOf(upstreamId))).toBe(true);
    const thumbnail = await fixture.client.videos.downloadContent(video.id, { variant: 'thumbnail' });
    expect(Buffer.from(await thumbnail.arrayBuffer()).equals(fixture.sora.contentOf(upstreamId).subarray(0, 1024))).toBe(true);
    // Downloads went to the upstream with the key that made the video.
    const downloads = fixture.sora.requests.filter((request) => request.path.startsWith(`/v1/videos/${upstreamId}/content`));
    expect(downloads.map((request) => request.path)).toEqual([`/v1/videos/${upstreamId}/content`, `/v1/videos/${upstreamId}/content?variant=thumbnail`]);
  });

  it('polls each task with the key that submitted it (keys rotate between submits)', async () => {
    const first = await fixture.client.videos.create({ model: 'sora-2', prompt: 'one' });
    const second = await fixture.client.videos.create({ model: 'sora-2', prompt: 'two' });
    const keysUsed = fixture.sora.requests.filter((request) => request.method === 'POST').slice(-2).map((request) => request.headers.authorization);
    expect(new Set(keysUsed)).toEqual(new Set(upstreamKeys.map((key) => `Bearer ${key}`)));
    for (const video of [first, second]) fixture.sora.advance(await upstreamIdOf(video.id), { status: 'completed' });
    fixture.advanceClock(1);
    await fixture.poll();
    // The fake answers 404 to a key that does not own a video: a wrong key would have failed these tasks.
    expect((await fixture.client.videos.retrieve(first.id)).status).toBe('completed');
    expect((await fixture.client.videos.retrieve(second.id)).status).toBe('completed');
  });

  it('refunds a failed task exactly once, with a log row saying so', async () => {
    const before = await fixture.tokenUsed();
    const video = await fixture.client.videos.create({ model: 'sora-2-pro', prompt: 'A forbidden scene', seconds: '12' });
    expect((await fixture.tokenUsed()) - before).toBe(expectedCharge('sora-2-pro', 12));

    fixture.sora.advance(await upstreamIdOf(video.id), { status: 'failed', error: { code: 'moderation_blocked', message: 'The prompt was blocked by moderation.' } });
    fixture.advanceClock(1);
    const pass = await fixture.poll();
    expect(pass.refunded).toBe(1);
    const failed = await fixture.client.videos.retrieve(video.id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'task_failed', message: 'The prompt was blocked by moderation.' } });
    expect(await fixture.tokenUsed()).toBe(before);
    expect(await fixture.task(video.id)).toMatchObject({ status: 'failure', refunded: 1, quota: expectedCharge('sora-2-pro', 12) });

    // Later passes find nothing to refund.
    fixture.advanceClock(60_000);
    await fixture.poll();
    expect(await fixture.tokenUsed()).toBe(before);
    const refunds = (await fixture.logs()).filter((row) => row.style === 'task-refund');
    expect(refunds.filter((row) => row.path === `/v1/videos/${video.id}`)).toEqual([
      expect.objectContaining({ quota: -expectedCharge('sora-2-pro', 12), model: 'sora-2-pro', usage_source: 'refund', error: 'Refunded: The prompt was blocked by moderation.' }),
    ]);
  });

  it('keeps a task as it was when its upstream cannot answer a poll, and goes on next time', async () => {
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'Retry me' });
    const upstreamId = await upstreamIdOf(video.id);
    fixture.sora.advance(upstreamId, { status: 'completed' });
    fixture.sora.enqueuePollFault(upstreamId, 500);
    fixture.advanceClock(1);
    await fixture.poll();
    expect((await fixture.client.videos.retrieve(video.id)).status).toBe('queued');
    await fixture.poll();
    expect((await fixture.client.videos.retrieve(video.id)).status).toBe('completed');
  });

  it('fails and refunds a task that outlives TASK_TIMEOUT_MINUTES (default 1440)', async () => {
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'Never finishes', seconds: '4' });
    const before = await fixture.tokenUsed();
    const logsBefore = (await fixture.logs()).length;
    fixture.advanceClock(1440 * 60_000 + 1);
    await fixture.poll();
    const failed = await fixture.client.videos.retrieve(video.id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toBe('The task did not finish within 1440 minutes.');
    // Every task of the earlier tests still unfinished timed out in the same pass: the key got back what
    // the pass's refund rows say, this task's charge among them.
    const refunds = (await fixture.logs()).slice(logsBefore).filter((row) => row.style === 'task-refund');
    expect(refunds.find((row) => row.path === `/v1/videos/${video.id}`)?.quota).toBe(-expectedCharge('sora-2', 4));
    expect(before - (await fixture.tokenUsed())).toBe(-refunds.reduce((sum, row) => sum + Number(row.quota), 0));
  });
});

describe('what a submit asks upstream, and what it costs', () => {
  it('asks for 4 seconds when the client named none, and charges those', async () => {
    const { charge } = await fixture.charged(() => fixture.client.videos.create({ model: 'sora-2', prompt: 'Default length' }));
    expect(fixture.sora.requests.at(-1)?.fields).toMatchObject({ seconds: '4' });
    expect(charge).toBe(expectedCharge('sora-2', 4));
  });

  it('prices a size the operator priced apart (model@size)', async () => {
    const { charge } = await fixture.charged(() => fixture.client.videos.create({ model: 'sora-2-pro', prompt: 'Wide', seconds: '8', size: '1792x1024' }));
    expect(charge).toBe(expectedCharge('sora-2-pro@1792x1024', 8));
    const { charge: small } = await fixture.charged(() => fixture.client.videos.create({ model: 'sora-2-pro', prompt: 'Tall', seconds: '8', size: '720x1280' }));
    expect(small).toBe(expectedCharge('sora-2-pro', 8));
  });

  it('takes JSON with `duration`, sent upstream as `seconds`', async () => {
    const { result, charge } = await fixture.charged(() =>
      fixture.fetch('/v1/videos', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'JSON body', duration: 12 }) }),
    );
    expect(result.status).toBe(200);
    const body = (await result.json()) as { id: string; seconds: string };
    expect(body).toMatchObject({ seconds: '12' });
    const sent = fixture.sora.requests.at(-1);
    expect(sent?.contentType).toBe('application/json');
    expect(sent?.fields).toEqual({ model: 'sora-2', prompt: 'JSON body', seconds: '12' });
    expect(charge).toBe(expectedCharge('sora-2', 12));
  });

  it('maps the model and bills a per-task price once', async () => {
    const { result, charge } = await fixture.charged(() => fixture.client.videos.create({ model: 'sora-alias' as 'sora-2', prompt: 'Mapped', seconds: '12' }));
    expect(result.model).toBe('sora-alias');
    expect(fixture.sora.requests.at(-1)?.fields).toMatchObject({ model: 'sora-2', seconds: '12' });
    expect(charge).toBe(expectedCharge('sora-alias', 12));
    expect(await fixture.task(result.id)).toMatchObject({ model: 'sora-alias', upstream_model: 'sora-2' });
  });

  it('sends a reference image file byte for byte', async () => {
    const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00, 0xfe, 0x01]);
    await fixture.client.videos.create({ model: 'sora-2', prompt: 'Animate this', seconds: '4', input_reference: await OpenAI.toFile(image, 'frame.png', { type: 'image/png' }) });
    expect(fixture.sora.requests.at(-1)?.files?.input_reference?.equals(image)).toBe(true);
  });

  it('fails over to another channel when the first answers 500, and charges once', async () => {
    fixture.sora.enqueueSubmitFault({ kind: 'status', status: 500 });
    const spareBefore = fixture.spare.requests.length;
    const { result, charge } = await fixture.charged(() => fixture.client.videos.create({ model: 'sora-2', prompt: 'Failover', seconds: '4' }));
    expect(fixture.spare.requests.length).toBe(spareBefore + 1);
    expect(charge).toBe(expectedCharge('sora-2', 4));
    const task = await fixture.task(result.id);
    const spareChannel = fixture.gateway.gateway.services.catalog.snapshot.channels.find((channel) => channel.name === 'spare-up');
    expect(task?.channel_id).toBe(spareChannel?.id);
    // It is polled on the channel that has it.
    fixture.spare.advance(task?.upstream_id as string, { status: 'completed' });
    fixture.advanceClock(1);
    await fixture.poll();
    expect((await fixture.client.videos.retrieve(result.id)).status).toBe('completed');
  });

  it('treats a 2xx that names no task as a failure: fails over, and answers 502 free when nothing else serves', async () => {
    const tasksBefore = await fixture.taskCount();
    fixture.sora.enqueueSubmitFault({ kind: 'answer', body: { ok: true } });
    fixture.spare.enqueueSubmitFault({ kind: 'answer', body: { status: 'queued' } });
    const { result, charge } = await fixture.charged(() => fixture.fetch('/v1/videos', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'No id' }) }));
    expect(result.status).toBe(502);
    expect(charge).toBe(0);
    expect(await fixture.taskCount()).toBe(tasksBefore);
  });

  it('answers a task the upstream failed at once as failed, at no charge', async () => {
    fixture.sora.enqueueSubmitFault({ kind: 'answer', body: { id: 'video_refused', object: 'video', status: 'failed', progress: 0, error: { code: 'moderation_blocked', message: 'Blocked.' } } });
    const { result, charge } = await fixture.charged(() => fixture.client.videos.create({ model: 'sora-2', prompt: 'Refused at once' }));
    expect(result).toMatchObject({ status: 'failed', error: { message: 'Blocked.' } });
    expect(charge).toBe(0);
    expect(await fixture.task(result.id)).toMatchObject({ status: 'failure', quota: 0, refunded: 1 });
    // Nothing was charged, so the poll loop gives nothing back either.
    const before = await fixture.tokenUsed();
    const logsBefore = (await fixture.logs()).length;
    await fixture.poll();
    expect((await fixture.logs()).slice(logsBefore).filter((row) => row.path === `/v1/videos/${result.id}`)).toEqual([]);
    expect(await fixture.task(result.id)).toMatchObject({ quota: 0, refunded: 1 });
    expect(await fixture.tokenUsed()).toBeGreaterThanOrEqual(before);
  });
});

describe('the unified route (/v1/video/generations)', () => {
  it('submits the Sora-style body and answers the task in new-api’s wrapper', async () => {
    const response = await fixture.fetch('/v1/video/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sora-2', prompt: 'Unified', duration: 8, size: '720x1280', image: 'https://cdn.example/first.png', metadata: { style: 'noir' } }),
    });
    expect(response.status).toBe(200);
    const video = (await response.json()) as { id: string; task_id: string; object: string; seconds: string };
    expect(video).toMatchObject({ object: 'video', seconds: '8', task_id: video.id });
    expect(fixture.sora.requests.at(-1)?.fields).toEqual({ model: 'sora-2', prompt: 'Unified', seconds: '8', size: '720x1280', input_reference: { image_url: 'https://cdn.example/first.png' } });

    const queried = await fixture.fetch(`/v1/video/generations/${video.id}`);
    expect(await queried.json()).toMatchObject({ code: 'success', data: { task_id: video.id, status: 'QUEUED', progress: '0%', properties: { seconds: '8', size: '720x1280' } } });
    fixture.sora.advance(await upstreamIdOf(video.id), { status: 'completed' });
    fixture.advanceClock(1);
    await fixture.poll();
    const done = (await (await fixture.fetch(`/v1/video/generations/${video.id}`)).json()) as { data: Record<string, unknown> };
    expect(done.data).toMatchObject({ status: 'SUCCESS', progress: '100%', result_url: `${fixture.gateway.url}/v1/videos/${video.id}/content` });
  });

  it('requires a model on the unified route', async () => {
    const response = await fixture.fetch('/v1/video/generations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'No model' }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'model' } });
  });
});

describe('who may see a task', () => {
  it('answers 404 for another user’s task and for an unknown id, and 400 for content not ready', async () => {
    const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'Mine' });
    for (const [path, key] of [
      [`/v1/videos/${video.id}`, `sk-${'o'.repeat(48)}`],
      [`/v1/videos/${video.id}/content`, `sk-${'o'.repeat(48)}`],
      ['/v1/videos/task_doesnotexist', clientKey],
      [`/v1/video/generations/${video.id}`, `sk-${'o'.repeat(48)}`],
    ] as const) {
      const response = await fixture.fetch(path, { key });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    }
    const early = await fixture.fetch(`/v1/videos/${video.id}/content`);
    expect(early.status).toBe(400);
    expect(((await early.json()) as { error: { message: string } }).error.message).toMatch(/^Task is not completed yet, current status: queued /);
    const badVariant = await fixture.fetch(`/v1/videos/${video.id}/content?variant=poster`);
    expect(badVariant.status).toBe(400);
  });
});
