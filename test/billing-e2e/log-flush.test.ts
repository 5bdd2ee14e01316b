import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/storage/create-database.js';
import { allDialects } from '../support/test-databases.js';
import { readBalances, readLogSummary, readReservations } from './read-billing-state.js';
import { spenderTokenName, startBillingFixture, type BillingFixture } from './start-billing-fixture.js';

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hello' }] };

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`request logs on a clean shutdown on ${dialect}`, () => {
    let fixture: BillingFixture | undefined;
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });

    it('writes a row for every request when the gateway closes right after answering, before the batch timer', async () => {
      fixture = await startBillingFixture({ dialect, tokenQuota: 10_000_000, userQuota: 10_000_000 });
      const { client } = fixture;
      const plain = Array.from({ length: 12 }, () => client.chat.completions.create(chat).withResponse());
      const streamed = Array.from({ length: 8 }, async () => {
        const { data, response } = await client.chat.completions.create({ ...chat, stream: true }).withResponse();
        for await (const _chunk of data) {
          // drain to the end of the stream
        }
        return { response };
      });
      const answered = await Promise.all([...plain, ...streamed]);
      const requestIds = answered.map(({ response }) => response.headers.get('x-request-id'));
      // The 500 ms batch timer has not fired for most of these rows: close() alone must write them.
      await fixture.stopGateway();

      const reopened = await createDatabase(fixture.databaseUrl);
      try {
        const logs = await readLogSummary(reopened.db);
        expect([...logs.requestIds].sort()).toEqual([...requestIds].sort());
        expect(logs.statuses.every((status) => status === 200)).toBe(true);
        // And nothing the shutdown interrupted was left unsettled or unlogged.
        const reservations = await readReservations(reopened.db);
        expect(reservations.filter((reservation) => reservation.state !== 'settled')).toEqual([]);
        const balances = await readBalances(reopened.db, spenderTokenName);
        expect(balances.token.used).toBe(logs.quota);
        expect(balances.token.used + balances.token.remain).toBe(10_000_000);
        // 17 prompt tokens × 1.5 + 9 output tokens × 7.5 = 25.5 + 67.5 = 93 quota per request (fake's usage, prices ×500 000/1M).
        expect(logs.quota).toBe(20 * 93);
      } finally {
        await reopened.close();
      }
    });

    it('lets streams still running at shutdown finish, then writes their rows and settles them', async () => {
      // Seven events 100 ms apart: every stream is mid-way when close() is called.
      fixture = await startBillingFixture({ dialect, tokenQuota: 10_000_000, userQuota: 10_000_000, upstreamOptions: { chunkDelayMs: 100 } });
      const { client } = fixture;
      const started = await Promise.all(Array.from({ length: 6 }, () => client.chat.completions.create({ ...chat, stream: true }).withResponse()));
      const requestIds = started.map(({ response }) => response.headers.get('x-request-id'));
      const texts = started.map(async ({ data }) => {
        let text = '';
        for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
        return text;
      });
      await fixture.stopGateway();
      expect(await Promise.all(texts)).toEqual(Array.from({ length: 6 }, () => 'Hello from the fake upstream!'));

      const reopened = await createDatabase(fixture.databaseUrl);
      try {
        const logs = await readLogSummary(reopened.db);
        expect([...logs.requestIds].sort()).toEqual([...requestIds].sort());
        expect(logs.statuses).toEqual([200, 200, 200, 200, 200, 200]);
        expect((await readReservations(reopened.db)).every((reservation) => reservation.state === 'settled')).toBe(true);
        expect((await readBalances(reopened.db, spenderTokenName)).token.used).toBe(6 * 93);
        expect(logs.quota).toBe(6 * 93);
      } finally {
        await reopened.close();
      }
    });
  });
}
