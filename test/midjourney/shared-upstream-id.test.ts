/**
 * From the async-tasks red team: two Midjourney proxies number their tasks alike, so two callers' tasks on
 * two channels carry the same upstream id; and a flaky proxy reports one task FAILURE, then SUCCESS, then
 * FAILURE. Each task is polled on its own channel, charged once, refunded at most once, and seen by its
 * owner alone (fetch, list-by-condition); `/mj/image/{id}` serves each task's own image.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import { startTaskProxies, type TaskProxies } from '../support/start-task-proxies.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { midjourneyClient, type MjTask } from './midjourney-client.js';

const painterKey = `sk-${'p'.repeat(48)}`;
const sculptorKey = `sk-${'q'.repeat(48)}`;
const imaginePrice = 0.05 * 500_000;

let mj: FakeMidjourneyUpstream;
let spare: FakeMidjourneyUpstream;
let proxies: TaskProxies<'midjourney'>;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  proxies = await startTaskProxies('midjourney');
  [mj, spare] = [proxies.up, proxies.spare];
  gateway = await startTaskGateway({
    type: 'midjourney',
    now: () => clock,
    prices: { mj_imagine: 0.05 },
    channels: proxies.channels,
    users: { painter: painterKey, sculptor: sculptorKey },
  });
});
afterAll(async () => {
  await gateway.close();
  await proxies.close();
});

const client = taskSuiteClient({ gateway: () => gateway, key: painterKey, tokenName: 'painter-key', tick: () => { clock += 1; } });
const { submit, fetchTask } = midjourneyClient(client, () => [mj, spare]);

describe('two tasks with one upstream id on two channels, one of them flaky', () => {
  it('each is polled on its channel, charged once, refunded at most once, and shown to its owner only', async () => {
    const painterBefore = await client.used('painter-key');
    const sculptorBefore = await client.used('sculptor-key');
    const painted = (await submit('/mj/submit/imagine', { prompt: 'a flaky fresco' })).result as string;
    // The first proxy's queue is full for the next submit: the sculptor's goes to the spare, which numbers it alike.
    mj.enqueueSubmitFault({ kind: 'code', code: 23 });
    const sculpted = (await submit('/mj/submit/imagine', { prompt: 'a solid statue' }, sculptorKey)).result as string;
    const sharedId = await client.upstreamIdOf(painted);
    expect(await client.upstreamIdOf(sculpted)).toBe(sharedId);
    expect((await client.used('painter-key')) - painterBefore).toBe(imaginePrice);
    expect((await client.used('sculptor-key')) - sculptorBefore).toBe(imaginePrice);

    // The flaky proxy: FAILURE, then SUCCESS, then FAILURE again; the spare finishes the sculptor's.
    mj.advance(sharedId, { status: 'FAILURE', failReason: 'flaky farm' });
    spare.advance(sharedId, { status: 'SUCCESS' });
    await client.poll();
    mj.advance(sharedId, { status: 'SUCCESS' });
    await client.poll();
    mj.advance(sharedId, { status: 'FAILURE', failReason: 'flaky farm again' });
    await client.poll();
    clock += 10 * 60_000;
    await client.poll();

    expect(await client.used('painter-key')).toBe(painterBefore);
    expect((await client.used('sculptor-key')) - sculptorBefore).toBe(imaginePrice);
    const rows = await gateway.gateway.services.database.db.selectFrom('tasks').select(['public_id', 'status', 'refunded', 'channel_id']).where('public_id', 'in', [painted, sculpted]).execute();
    expect(rows.find((row) => row.public_id === painted)).toMatchObject({ status: 'failure', refunded: 1 });
    expect(rows.find((row) => row.public_id === sculpted)).toMatchObject({ status: 'success', refunded: 0 });
    const refundRows = await gateway.gateway.services.database.db.selectFrom('logs').select('id').where('style', '=', 'task-refund').execute();
    expect(refundRows).toHaveLength(1);

    expect((await fetchTask(painted)).status).toBe('FAILURE');
    const sculptorsView = await fetchTask(sculpted, sculptorKey);
    expect(sculptorsView).toMatchObject({ status: 'SUCCESS', imageUrl: `${spare.url}/images/${sharedId}.png` });
    // Neither sees the other's task, by fetch or in a batch.
    expect((await client.call(`/mj/task/${sculpted}/fetch`)).status).toBe(404);
    const listed = (await (await client.call('/mj/task/list-by-condition', { ids: [painted, sculpted, painted] })).json()) as MjTask[];
    expect(listed.map((task) => task.id)).toEqual([painted]);
    // The keyless image route serves the spare's image for the sculptor's task, and none for the failed one.
    const image = await fetch(`${gateway.url}/mj/image/${sculpted}`);
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).equals(spare.imageOf(sharedId))).toBe(true);
    expect((await fetch(`${gateway.url}/mj/image/${painted}`)).status).toBe(404);
  });
});
