/** poll outcomes and their money, the content route, AuthFailure handling. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeTencentVodUpstream, type FakeTencentVodUpstream } from '../fakes/fake-tencent-vod-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { preferredDialect } from './videos-fixture.js';
import { taskSuiteClient } from '../support/task-suite-client.js';

const subAppId = 1_500_012_345;
const secretId = 'AKIDauditvod222222222222222222222222';
const secretKey = 'vodAuditSecret22222222222222222222';
const clientKey = `sk-${'p'.repeat(48)}`;

let vod: FakeTencentVodUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  vod = await startFakeTencentVodUpstream({ secrets: { [secretId]: secretKey }, subAppId, now: () => clock });
  const base = { type: 'tencent-vod' as const, base_url: vod.url, models: ['Kling-2.6'], model_mapping: {}, groups: ['default'], weight: 1, enabled: true, settings: {} };
  gateway = await startTestGateway({
    dialect: preferredDialect(),
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      prices: { 'Kling-2.6': { per_second: 0.5 } },
      channels: [
        { ...base, name: 'first', key: `${subAppId}|${secretId}|${secretKey}`, priority: 10, auto_disable: true },
        { ...base, name: 'second', key: `${subAppId}|${secretId}|${secretKey} `, priority: 0, auto_disable: false },
      ],
      users: [{ username: 'maker', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'maker-key', user: 'maker', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await vod?.close();
});

const { used, call, poll, upstreamIdOf } = taskSuiteClient({ gateway: () => gateway, key: clientKey, tokenName: 'maker-key', tick: () => {
    clock += 1;
  } });
const submit = async () => {
  const response = await call('/v1/videos', { model: 'Kling-2.6', prompt: 'x' });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
};

describe('tencent-vod poll probes', () => {
  it('a transient DescribeTaskDetail error leaves the task; FINISH without a URL fails it and refunds once; content is 400', async () => {
    const before = await used();
    const id = await submit();
    expect(await used()).toBeGreaterThan(before);
    vod.enqueueFault({ action: 'DescribeTaskDetail', error: { Code: 'InternalError', Message: 'boom' } });
    await poll();
    expect(((await (await call(`/v1/videos/${id}`)).json()) as { status: string }).status).toBe('queued');
    vod.advance(await upstreamIdOf(id), { status: 'FINISH', noUrl: true });
    await poll();
    await poll();
    expect(((await (await call(`/v1/videos/${id}`)).json()) as { status: string }).status).toBe('failed');
    expect(await used()).toBe(before);
    expect((await call(`/v1/videos/${id}/content`)).status).toBe(400);
  });

  it('a task VOD no longer knows (ResourceNotFound) is failed and refunded', async () => {
    const before = await used();
    const id = await submit();
    vod.tasks.delete(await upstreamIdOf(id));
    await poll();
    expect(((await (await call(`/v1/videos/${id}`)).json()) as { status: string }).status).toBe('failed');
    expect(await used()).toBe(before);
  });

  it('AuthFailure at submit disables an auto_disable channel and the task goes to the next channel, charged once', async () => {
    const before = await used();
    vod.enqueueFault({ action: 'CreateAigcVideoTask', error: { Code: 'AuthFailure.SecretIdNotFound', Message: 'no such id' } });
    const id = await submit();
    expect(await used()).toBe(before + 0.5 * 5 * 500_000);
    const task = await gateway.gateway.services.database.db.selectFrom('tasks').select('channel_id').where('public_id', '=', id).executeTakeFirstOrThrow();
    const channels = gateway.gateway.services.catalog.snapshot.channels;
    expect(task.channel_id).toBe(channels.find((channel) => channel.name === 'second')?.id);
    // The channel is disabled off the request's path (relay-services.ts: never awaited): wait for it.
    await vi.waitFor(() => expect(gateway.gateway.services.catalog.snapshot.channels.find((channel) => channel.name === 'first')?.status).not.toBe('enabled'), { timeout: 5000, interval: 20 });
    // And the task of the second channel (whose key carries a trailing space) polls and completes.
    vod.advance(await upstreamIdOf(id), { status: 'FINISH' });
    await poll();
    expect(((await (await call(`/v1/videos/${id}`)).json()) as { status: string }).status).toBe('completed');
    const content = await call(`/v1/videos/${id}/content`);
    expect(content.status).toBe(200);
    await content.arrayBuffer();
  });

  it('a task already accepted on a channel that is later auto-disabled is still polled and completes', async () => {
    const firstId = gateway.gateway.services.catalog.snapshot.channels.find((channel) => channel.name === 'first')?.id as number;
    const enabled = await fetch(`${gateway.url}/api/admin/channels/${firstId}`, { method: 'PUT', headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: true }) });
    expect(enabled.status).toBe(200);
    const before = await used();
    const id = await submit();
    const first = gateway.gateway.services.catalog.snapshot.channels.find((channel) => channel.name === 'first');
    expect((await gateway.gateway.services.database.db.selectFrom('tasks').select('channel_id').where('public_id', '=', id).executeTakeFirstOrThrow()).channel_id).toBe(first?.id);
    // A one-off signature refusal (e.g. clock skew) disables the channel.
    vod.enqueueFault({ action: 'CreateAigcVideoTask', error: { Code: 'AuthFailure.SignatureExpire', Message: 'expired' } });
    await submit();
    // The channel is disabled off the request's path (relay-services.ts: never awaited): wait for it.
    await vi.waitFor(() => expect(gateway.gateway.services.catalog.snapshot.channels.find((channel) => channel.name === 'first')?.status).not.toBe('enabled'), { timeout: 5000, interval: 20 });
    vod.advance(await upstreamIdOf(id), { status: 'FINISH' });
    await poll();
    expect(((await (await call(`/v1/videos/${id}`)).json()) as { status: string }).status).toBe('completed');
    expect(await used()).toBe(before + 2 * 0.5 * 5 * 500_000);
  });

  it('a form: file parts refused at no charge and no task; text parts sent with the length billed', async () => {
    const before = await used();
    const tasksBefore = (await gateway.gateway.services.database.db.selectFrom('tasks').select('id').execute()).length;
    const withFile = new FormData();
    withFile.set('model', 'Kling-2.6');
    withFile.set('prompt', 'x');
    withFile.set('input_reference', new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'a.png');
    const refused = await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}` }, body: withFile });
    expect(refused.status).toBe(400);
    expect(await used()).toBe(before);
    expect((await gateway.gateway.services.database.db.selectFrom('tasks').select('id').execute()).length).toBe(tasksBefore);
    const text = new FormData();
    text.set('model', 'Kling-2.6');
    text.set('prompt', 'x');
    text.set('seconds', '10');
    text.set('image', 'https://cdn.example/a.png');
    const accepted = await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}` }, body: text });
    expect(accepted.status).toBe(200);
    expect(await used()).toBe(before + 0.5 * 10 * 500_000);
    expect(vod.requests.filter((request) => request.action === 'CreateAigcVideoTask').at(-1)?.body).toMatchObject({ OutputConfig: { Duration: 10 }, FileInfos: [{ Url: 'https://cdn.example/a.png', Usage: 'FirstFrame' }] });
  });

  it('a VOD AuthFailure message quoting the SecretId never reaches the client', async () => {
    for (let index = 0; index < 2; index += 1) vod.enqueueFault({ action: 'CreateAigcVideoTask', error: { Code: 'AuthFailure.SecretIdNotFound', Message: `The SecretId \`${secretId}\` is not found, please ensure that your SecretId is correct.` } });
    const response = await call('/v1/videos', { model: 'Kling-2.6', prompt: 'x' });
    const text = await response.text();
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(text).not.toContain(secretId);
  });
});
