import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { createTestDatabase, serverUrls, type TestDatabase } from '../support/test-databases.js';
import { readBalances, readReservations, waitFor, waitUntilDisconnected } from './read-billing-state.js';
import { findFreePort, spawnGatewayProcess, writeConfigFile, type GatewayProcess } from './spawn-gateway-process.js';
import { spendRequest, spendReservation } from './spend-request.js';
import { billingPrices, spenderKey, spenderTokenName, spenderUsername } from './start-billing-fixture.js';

const grant = 100_000;
const wallet = 1_000_000;
const nodeName = 'crash-node';
const dialects = [
  { dialect: 'sqlite' as const, available: true },
  { dialect: 'postgres' as const, available: serverUrls.postgres !== undefined },
];

for (const { dialect, available } of dialects) {
  describe.skipIf(!available)(`a gateway killed between reservation and settlement, on ${dialect}`, () => {
    const processes: GatewayProcess[] = [];
    let upstream: FakeOpenaiUpstream | undefined;
    let database: TestDatabase | undefined;
    let inspector: DatabaseHandle | undefined;
    let config: { remove(): void } | undefined;

    afterEach(async () => {
      for (const gateway of processes) await gateway.crash();
      await inspector?.close();
      await upstream?.close();
      if (database !== undefined) {
        if (dialect === 'postgres') await waitUntilDisconnected(database.url);
        await database.drop();
      }
      config?.remove();
    });

    it('settles the open reservation at its reserved amount when the same NODE_NAME starts again', async () => {
      database = await createTestDatabase(dialect);
      upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-a'] });
      // The stream sends its first chunk, then hangs for a minute: the reservation stays open.
      upstream.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 60_000 });
      const written = writeConfigFile({
        prices: { 'gpt-4o-mini': billingPrices['gpt-4o-mini'] },
        channels: [{ name: 'channel-a', type: 'openai', base_url: upstream.url, key: 'sk-upstream-a', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
        users: [{ username: spenderUsername, role: 'user', group: 'default', quota: wallet, enabled: true }],
        tokens: [{ name: spenderTokenName, user: spenderUsername, key: spenderKey, quota: grant, expires_at: 0, enabled: true }],
      });
      config = written;
      const port = await findFreePort();
      const start = () => {
        const gateway = spawnGatewayProcess({ port, databaseUrl: database!.url, configPath: written.path, nodeName });
        processes.push(gateway);
        return gateway;
      };

      const first = start();
      await first.waitUntilReady();
      inspector = await createDatabase(database.url);
      const db = inspector.db;

      const client = new AbortController();
      const response = await fetch(`${first.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${spenderKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...spendRequest, stream: true }),
        signal: client.signal,
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('chat.completion.chunk');
      const open = await waitFor('the open reservation', async () => (await readReservations(db)).find((reservation) => reservation.state === 'reserved'));
      expect(open).toMatchObject({ amount: spendReservation, owner: nodeName, settledAmount: null });

      // Another instance's open reservation is not this node's to settle (it is not 24 h old either).
      const tokenRow = await db.selectFrom('tokens').select(['id', 'user_id']).where('name', '=', spenderTokenName).executeTakeFirstOrThrow();
      await db
        .insertInto('quota_reservations')
        .values({ id: 'held-by-another-node', token_id: tokenRow.id, user_id: tokenRow.user_id, amount: 1234, owner: 'another-node', state: 'reserved', settled_amount: null, created_at: Date.now(), settled_at: null })
        .execute();

      await first.crash();
      client.abort();
      expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });

      // Killed: nothing settled, the reservation still holds its amount on both balances.
      expect((await readReservations(db)).find((reservation) => reservation.id === open.id)).toMatchObject({ state: 'reserved', settledAmount: null });
      expect(await readBalances(db, spenderTokenName)).toMatchObject({
        token: { remain: grant - spendReservation, used: 0 },
        user: { quota: wallet - spendReservation, used: 0 },
      });

      const second = start();
      await second.waitUntilReady();
      const announcement = `Settled 1 reservation(s) left open by a crash (${spendReservation} quota units charged as reserved).`;
      await waitFor('the start-up announcement', async () => (second.output().includes(announcement) ? true : undefined), 5000).catch(() => undefined);
      expect(second.output()).toContain(announcement);

      const reservations = await readReservations(db);
      expect(reservations.find((reservation) => reservation.id === open.id)).toMatchObject({ state: 'settled', settledAmount: spendReservation });
      expect(reservations.find((reservation) => reservation.id === 'held-by-another-node')).toMatchObject({ state: 'reserved', settledAmount: null });
      expect(await readBalances(db, spenderTokenName)).toMatchObject({
        token: { remain: grant - spendReservation, used: spendReservation, requests: 1 },
        user: { quota: wallet - spendReservation, used: spendReservation, requests: 1 },
      });
      // The charge has a log row that says where it came from, so the logs still add up to what was used.
      const logs = await db.selectFrom('logs').selectAll().execute();
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ request_id: open.id, token_name: spenderTokenName, quota: spendReservation, usage_source: 'reserved', status: 0 });
      expect(logs[0]!.error).toContain(nodeName);
    }, 60_000);
  });
}
