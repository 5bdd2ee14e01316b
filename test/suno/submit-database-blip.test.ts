/**
 * A Suno submit the proxy accepted while the database refused to record it (the path every task kind
 * shares, src/relay/task-submit/run-task-submit.ts): the song is not lost. The refusal is the driver's, for
 * `markSubmitted` only (test/support/submit-write-blips.ts); charges come from docs/behaviour.md "Suno".
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeSunoUpstream, type FakeSunoUpstream } from '../fakes/fake-suno-upstream.js';
import { startTaskGateway } from '../support/start-task-gateway.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { refuseSubmittedWrites, reportedLines, until } from '../support/submit-write-blips.js';
import { taskSuiteClient } from '../support/task-suite-client.js';
import { allDialects } from '../support/test-databases.js';

const clientKey = `sk-${'b'.repeat(48)}`;
const musicCharge = 0.1 * 500_000;

describe.each(allDialects)('a Suno submit the database refuses to record, on $dialect', ({ dialect, available }) => {
  let suno: FakeSunoUpstream | undefined;
  let gateway: TestGateway | undefined;
  let clock = Date.now();

  afterEach(async () => {
    vi.restoreAllMocks();
    await gateway?.close();
    await suno?.close();
    gateway = undefined;
    suno = undefined;
  });

  async function start(): Promise<{ gateway: TestGateway; suno: FakeSunoUpstream }> {
    suno = await startFakeSunoUpstream({ expectedKeys: ['sk-suno-up'] });
    gateway = await startTaskGateway({ type: 'suno', dialect, now: () => clock, prices: { suno_music: 0.1 }, channels: [{ name: 'suno-up', base_url: suno.url, key: 'sk-suno-up', priority: 0 }], users: { singer: clientKey } });
    return { gateway, suno };
  }
  const client = taskSuiteClient({ gateway: () => gateway as TestGateway, key: clientKey, tokenName: 'singer-key', tick: () => (clock += 1) });
  const taskRow = (publicId: string) => (gateway as TestGateway).gateway.services.database.db.selectFrom('tasks').selectAll().where('public_id', '=', publicId).executeTakeFirstOrThrow();
  const submit = async () => {
    const response = await client.call('/suno/submit/music', { prompt: '[Verse] a blip', mv: 'chirp-v4' });
    expect(response.status).toBe(200);
    return ((await response.json()) as { code: string; data: string }).data;
  };

  it.skipIf(!available)('an outage past the request: answered its id at once, charged once, written in the background, then polled to success', async () => {
    const { gateway, suno } = await start();
    // Four tries within the request, then two background tries refused (0.5 s and 1 s after); the next lands.
    const outcomes = refuseSubmittedWrites(gateway, 6);
    const before = await client.used();

    const id = await submit();
    expect(id).toMatch(/^task_[A-Za-z0-9]{32}$/);
    expect(outcomes.slice(0, 4)).toEqual(['refused', 'refused', 'refused', 'refused']);
    expect((await client.used()) - before).toBe(musicCharge);

    await until(() => outcomes.includes('written'));
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'written']);
    const upstreamId = [...suno.tasks.keys()].at(-1) as string;
    expect(await taskRow(id)).toMatchObject({ status: 'submitted', upstream_id: upstreamId, quota: musicCharge, refunded: 0 });
    suno.advance(upstreamId, { status: 'SUCCESS' });
    await client.poll();
    expect(await (await client.call(`/suno/fetch/${id}`)).json()).toMatchObject({ data: { task_id: id, status: 'SUCCESS' } });
    expect((await client.used()) - before).toBe(musicCharge);
    expect(suno.requests.filter((request) => request.method === 'POST' && request.path === '/suno/submit/MUSIC')).toHaveLength(1);
  });

  it.skipIf(!available)('never written: one operator line with the upstream id, and the orphan sweep refunds the charge once', async () => {
    const { gateway, suno } = await start();
    refuseSubmittedWrites(gateway, 99);
    const lines = reportedLines();
    const before = await client.used();

    const id = await submit();
    const upstreamId = [...suno.tasks.keys()].at(-1) as string;
    // Shutdown's last try (refused too): nothing holds the row now.
    await gateway.gateway.services.relay.pendingSubmits.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`task ${id}`);
    expect(lines[0]).toContain(`(upstream id ${JSON.stringify(upstreamId)})`);
    expect((await client.used()) - before).toBe(musicCharge);

    clock += 16 * 60_000;
    await client.poll();
    clock += 200_000;
    await client.poll();
    expect(await taskRow(id)).toMatchObject({ status: 'failure', refunded: 1, quota: musicCharge });
    expect(await client.used()).toBe(before);
    const refunds = await gateway.gateway.services.database.db.selectFrom('logs').select('quota').where('style', '=', 'task-refund').execute();
    expect(refunds.map((row) => Number(row.quota))).toEqual([-musicCharge]);
  });
});
