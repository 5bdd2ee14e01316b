import { afterEach, describe, expect, it } from 'vitest';
import { allDialects } from '../support/test-databases.js';
import { readBalances, readLogSummary, readReservations } from './read-billing-state.js';
import { insufficientQuotaEnvelope, sendSpendRequest, spendReservation, usageAtReservation, type SpendOutcome } from './spend-request.js';
import { spenderTokenName, startBillingFixture, type BillingFixture } from './start-billing-fixture.js';

const concurrentRequests = 40;
/** Five reservations fit, a sixth does not. */
const grant = 5 * spendReservation + 400;
const plenty = 1_000_000_000;

function countOutcomes(outcomes: SpendOutcome[]) {
  const served = outcomes.filter((outcome) => outcome.kind === 'served');
  const refused = outcomes.filter((outcome): outcome is Extract<SpendOutcome, { kind: 'refused' }> => outcome.kind === 'refused');
  return { served, refused };
}

describe('the reservation of the spend request', () => {
  it('is the hand-computed 761 quota units', () => {
    expect(spendReservation).toBe(761);
  });
});

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`${concurrentRequests} concurrent requests against a balance that affords five, on ${dialect}`, () => {
    let fixture: BillingFixture | undefined;
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });

    /** The ledger, the logs and the fake upstreams agree, and no balance moved past its grant. */
    async function expectConsistentBooks(served: number, grants: { token: number; user: number }) {
      const { db, gateway } = fixture!;
      await gateway.settled();
      const balances = await readBalances(db, spenderTokenName);
      const reservations = await readReservations(db);
      const logs = await readLogSummary(db);

      // No upstream call for a refused request.
      expect(fixture!.upstreamRequestCount()).toBe(served);
      // Refused reservations leave no row; every admitted one is settled.
      expect(reservations).toHaveLength(served);
      expect(reservations.filter((reservation) => reservation.state !== 'settled')).toEqual([]);
      // One log row per served request, and the logs add up to what was taken.
      expect(logs.rows).toBe(served);
      expect(logs.statuses.every((status) => status === 200)).toBe(true);
      expect(logs.quota).toBe(balances.token.used);
      expect(reservations.reduce((total, reservation) => total + (reservation.settledAmount ?? 0), 0)).toBe(balances.token.used);
      // Conservation, and never below zero.
      expect(balances.token.used + balances.token.remain).toBe(grants.token);
      expect(balances.user.used + balances.user.quota).toBe(grants.user);
      expect(balances.token.used).toBeLessThanOrEqual(Math.min(grants.token, grants.user));
      expect(balances.token.remain).toBeGreaterThanOrEqual(0);
      expect(balances.user.quota).toBeGreaterThanOrEqual(0);
      expect(balances.user.used).toBe(balances.token.used);
      expect(balances.token.requests).toBe(served);
      return balances;
    }

    it('serves exactly five non-streaming requests when the token is short, answers the rest 402 and calls no upstream for them', async () => {
      fixture = await startBillingFixture({ dialect, tokenQuota: grant, userQuota: plenty, upstreamOptions: usageAtReservation });
      const client = fixture.client;
      const outcomes = await Promise.all(Array.from({ length: concurrentRequests }, () => sendSpendRequest(client, false)));

      const { served, refused } = countOutcomes(outcomes);
      expect(served).toHaveLength(5);
      expect(served.every((outcome) => outcome.kind === 'served' && outcome.text === 'Hello from the fake upstream!')).toBe(true);
      expect(refused).toHaveLength(concurrentRequests - 5);
      for (const outcome of refused) {
        expect(outcome.status).toBe(402);
        expect(outcome.error).toEqual(insufficientQuotaEnvelope('this API key'));
      }
      const balances = await expectConsistentBooks(5, { token: grant, user: plenty });
      expect(balances.token).toMatchObject({ used: 5 * 761, remain: 400 });
    });

    it('serves exactly five streaming requests when the user wallet is short, and answers the rest 402 before any stream starts', async () => {
      // The streams take a while, so all forty are in flight together.
      fixture = await startBillingFixture({ dialect, tokenQuota: plenty, userQuota: grant, upstreamOptions: { ...usageAtReservation, chunkDelayMs: 20 } });
      const client = fixture.client;
      const outcomes = await Promise.all(Array.from({ length: concurrentRequests }, () => sendSpendRequest(client, true)));

      const { served, refused } = countOutcomes(outcomes);
      expect(served).toHaveLength(5);
      expect(served.every((outcome) => outcome.kind === 'served' && outcome.text === 'Hello from the fake upstream!')).toBe(true);
      expect(refused).toHaveLength(concurrentRequests - 5);
      for (const outcome of refused) {
        expect(outcome.status).toBe(402);
        expect(outcome.error).toEqual(insufficientQuotaEnvelope('your account'));
      }
      const balances = await expectConsistentBooks(5, { token: plenty, user: grant });
      expect(balances.user).toMatchObject({ used: 5 * 761, quota: 400 });
    });

    it('never takes a balance below zero when the upstream reports more than was reserved', async () => {
      // 6 × $3 + 150 × $15 = 2,268 $·tokens/M → 1,134 quota per request, 373 over its reservation: the
      // extra is taken only as far as the token still covers it.
      fixture = await startBillingFixture({ dialect, tokenQuota: grant, userQuota: plenty, upstreamOptions: { promptTokens: 6, completionTokens: 150, chunkDelayMs: 10 } });
      const client = fixture.client;
      const outcomes = await Promise.all(Array.from({ length: concurrentRequests }, (_, index) => sendSpendRequest(client, index % 2 === 0)));

      const { served, refused } = countOutcomes(outcomes);
      // Whatever the timing: each served request costs at least its 761 reservation (so at most 5) and at
      // most 1,134, and the grant ends fully spent (so at least 4,205 / 1,134 → 4).
      expect(served.length).toBeGreaterThanOrEqual(4);
      expect(served.length).toBeLessThanOrEqual(5);
      expect(refused.every((outcome) => outcome.status === 402)).toBe(true);
      const balances = await expectConsistentBooks(served.length, { token: grant, user: plenty });
      // A refusal means less than 761 was left; an overrun is then capped at what is left, down to zero.
      expect(balances.token).toMatchObject({ used: grant, remain: 0 });
      const charges = (await fixture.db.selectFrom('logs').select('quota').execute()).map((row) => Number(row.quota));
      for (const charge of charges) {
        expect(charge).toBeGreaterThanOrEqual(761);
        expect(charge).toBeLessThanOrEqual(1134);
      }
    });
  });
}
