/**
 * A Midjourney-proxy that lists one task twice in its `list-by-condition` answer (an old record kept beside
 * the live one). docs/behaviour.md "Midjourney": the record furthest along wins (success, failure, in
 * progress, submitted), then the later finishTime / startTime / submitTime. Taking the first listed would
 * keep a finished task unfinished until it timed out and was refunded, or refund one that succeeded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { preferredDialect } from '../videos/videos-fixture.js';
import { midjourneyClient } from './midjourney-client.js';

const painterKey = `sk-${'d'.repeat(48)}`;
const imaginePrice = 0.05 * 500_000;
const timeoutMinutes = 60;

let mj: FakeMidjourneyUpstream;
let gateway: TestGateway;
let clock = Date.now();

beforeAll(async () => {
  mj = await startFakeMidjourneyUpstream({ expectedKeys: ['mj-secret-dup'] });
  gateway = await startTestGateway({
    dialect: preferredDialect(),
    now: () => clock,
    env: { TASK_POLL_INTERVAL: '0', TASK_TIMEOUT_MINUTES: String(timeoutMinutes) },
    config: {
      prices: { mj_imagine: { per_call: 0.05 } },
      channels: [{ name: 'mj-dup', type: 'midjourney', base_url: mj.url, key: 'mj-secret-dup', groups: ['default'], weight: 1, priority: 0, enabled: true, auto_disable: false, settings: {}, model_mapping: {}, models: ['mj_imagine'] }],
      users: [{ username: 'painter', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'painter-key', user: 'painter', key: painterKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await mj?.close();
});

const client = taskSuiteClient({ gateway: () => gateway, key: painterKey, tokenName: 'painter-key', tick: () => { clock += 1; } });
const { submit, fetchTask } = midjourneyClient(client, () => [mj]);

async function stored(publicId: string) {
  const db = gateway.gateway.services.database.db;
  const task = await db.selectFrom('tasks').select(['status', 'refunded', 'request_id']).where('public_id', '=', publicId).executeTakeFirstOrThrow();
  const refunds = await db.selectFrom('logs').select('id').where('style', '=', 'task-refund').where('request_id', '=', task.request_id).execute();
  return { status: task.status, refunded: Number(task.refunded), refundRows: refunds.length };
}

/** Polls past the task timeout: a task still unfinished then is failed and refunded. */
async function pollPastTimeout(): Promise<void> {
  await client.poll();
  clock += (timeoutMinutes + 1) * 60_000;
  await client.poll();
}

describe('list-by-condition listing one task twice', () => {
  it('an old SUBMITTED record listed first does not hide the SUCCESS: shown finished, charged once, never refunded', async () => {
    const before = await client.used();
    const id = (await submit('/mj/submit/imagine', { prompt: 'a twice-listed lighthouse' })).result as string;
    const upstreamId = await client.upstreamIdOf(id);
    mj.listTwice(upstreamId);
    mj.advance(upstreamId, { status: 'SUCCESS' });
    await pollPastTimeout();
    expect(await fetchTask(id)).toMatchObject({ status: 'SUCCESS', progress: '100%' });
    expect(await stored(id)).toEqual({ status: 'success', refunded: 0, refundRows: 0 });
    expect((await client.used()) - before).toBe(imaginePrice);
  });

  it('an old FAILURE record listed first beside a SUCCESS (a retried task): shown finished, not refunded', async () => {
    const before = await client.used();
    const id = (await submit('/mj/submit/imagine', { prompt: 'a retried harbour' })).result as string;
    const upstreamId = await client.upstreamIdOf(id);
    mj.advance(upstreamId, { status: 'FAILURE', failReason: 'worker crashed' });
    mj.listTwice(upstreamId);
    mj.advance(upstreamId, { status: 'SUCCESS' });
    await pollPastTimeout();
    expect(await fetchTask(id)).toMatchObject({ status: 'SUCCESS' });
    expect(await stored(id)).toEqual({ status: 'success', refunded: 0, refundRows: 0 });
    expect((await client.used()) - before).toBe(imaginePrice);
  });

  it('an old IN_PROGRESS record listed first beside a FAILURE: failed and refunded once', async () => {
    const before = await client.used();
    const id = (await submit('/mj/submit/imagine', { prompt: 'a banned banner' })).result as string;
    const upstreamId = await client.upstreamIdOf(id);
    mj.advance(upstreamId, { status: 'IN_PROGRESS', progress: '30%' });
    mj.listTwice(upstreamId);
    mj.advance(upstreamId, { status: 'FAILURE', failReason: 'banned prompt' });
    await client.poll();
    expect(await fetchTask(id)).toMatchObject({ status: 'FAILURE', failReason: 'banned prompt' });
    await pollPastTimeout();
    expect(await stored(id)).toEqual({ status: 'failure', refunded: 1, refundRows: 1 });
    expect(await client.used()).toBe(before);
  });
});
