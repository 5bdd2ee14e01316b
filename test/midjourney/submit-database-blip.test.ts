/**
 * A Midjourney submit the proxy accepted while the database refused to record it (the path every task
 * kind shares, src/relay/task-submit/run-task-submit.ts): the image task is not lost. The refusal is the
 * driver's, for `markSubmitted` only (test/support/submit-write-blips.ts); charges come from
 * docs/behaviour.md "Midjourney".
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { refuseSubmittedWrites, until } from '../support/submit-write-blips.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { allDialects } from '../support/test-databases.js';
import { midjourneyClient } from './midjourney-client.js';

const clientKey = `sk-${'j'.repeat(48)}`;
const imagineCharge = 0.05 * 500_000;

describe.each(allDialects)('a Midjourney submit the database refuses to record, on $dialect', ({ dialect, available }) => {
  let mj: FakeMidjourneyUpstream | undefined;
  let gateway: TestGateway | undefined;
  let clock = Date.now();

  afterEach(async () => {
    vi.restoreAllMocks();
    await gateway?.close();
    await mj?.close();
    gateway = undefined;
    mj = undefined;
  });

  const client = taskSuiteClient({ gateway: () => gateway as TestGateway, key: clientKey, tokenName: 'painter-key', tick: () => (clock += 1) });
  const { submit, fetchTask } = midjourneyClient(client, () => (mj === undefined ? [] : [mj]));

  it.skipIf(!available)('an outage past the request: answered its id at once, charged once, written in the background, then polled to success', async () => {
    const upstream = (mj = await startFakeMidjourneyUpstream({ expectedKeys: ['mj-secret-up'] }));
    gateway = await startTaskGateway({ type: 'midjourney', dialect, now: () => clock, prices: { mj_imagine: 0.05 }, channels: [{ name: 'mj-up', base_url: upstream.url, key: 'mj-secret-up', priority: 0 }], users: { painter: clientKey } });
    // Four tries within the request, then two background tries refused (0.5 s and 1 s after); the next lands.
    const outcomes = refuseSubmittedWrites(gateway, 6);
    const before = await client.used();

    const answer = await submit('/mj/submit/imagine', { prompt: 'a lighthouse in a blip' });
    expect(answer).toMatchObject({ code: 1, description: 'Submit success' });
    const id = answer.result as string;
    expect(id).toMatch(/^task_[A-Za-z0-9]{32}$/);
    expect(outcomes.slice(0, 4)).toEqual(['refused', 'refused', 'refused', 'refused']);
    expect((await client.used()) - before).toBe(imagineCharge);

    await until(() => outcomes.includes('written'));
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'written']);
    const upstreamId = await client.upstreamIdOf(id);
    expect(upstream.tasks.has(upstreamId)).toBe(true);
    upstream.advance(upstreamId, { status: 'SUCCESS' });
    await client.poll();
    expect(await fetchTask(id)).toMatchObject({ id, action: 'IMAGINE', status: 'SUCCESS' });
    expect((await client.used()) - before).toBe(imagineCharge);
    expect(upstream.requests.filter((request) => request.method === 'POST' && request.path === '/mj/submit/imagine')).toHaveLength(1);
  });
});
