import OpenAI from 'openai';
import { expect } from 'vitest';
import type { Database } from '../../src/storage/database-schema.js';
import type { FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { readBalances, readReservations, waitFor, waitForLogRows } from './read-billing-state.js';
import type { GatewayProcess } from './spawn-gateway-process.js';
import { insufficientQuotaEnvelope, sendSpendRequest, spendReservation } from './spend-request.js';
import { spenderKey, spenderTokenName } from './start-billing-fixture.js';

/** A token grant that five reservations of the spend request fit, and a sixth does not. */
export const fiveSpendsGrant = 5 * spendReservation + 400;

/**
 * The proof that several gateway processes never spend past a grant together: 30 spend requests at once
 * (every other one streamed), spread round-robin over `processes`, against the spender token holding
 * `fiveSpendsGrant` (its user 1,000,000,000). Exactly 5 are served, 25 refused with 402 and no upstream
 * call; then the books agree to the unit: reservations, log rows, token, user and channel counters.
 */
export async function expectFiveOfThirtyServed(options: { processes: GatewayProcess[]; nodeNames: string[]; upstream: FakeOpenaiUpstream; db: Database; channelName: string }): Promise<void> {
  const { processes, nodeNames, upstream, db } = options;
  const clients = processes.map((gateway) => new OpenAI({ apiKey: spenderKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 }));
  const before = upstream.requests.length;
  const outcomes = await Promise.all(Array.from({ length: 30 }, (_, index) => sendSpendRequest(clients[index % clients.length]!, index % 2 === 1)));

  const served = outcomes.filter((outcome) => outcome.kind === 'served');
  const refused = outcomes.filter((outcome) => outcome.kind === 'refused');
  expect(served).toHaveLength(5);
  expect(refused).toHaveLength(25);
  for (const outcome of refused) {
    expect(outcome.kind === 'refused' && outcome.status).toBe(402);
    expect(outcome.kind === 'refused' && outcome.error).toEqual(insufficientQuotaEnvelope('this API key'));
  }
  expect(upstream.requests.length - before).toBe(5);

  // Each process settles after its client has the answer, and writes its log rows in batches.
  const reservations = await waitFor('every reservation settled', async () => {
    const rows = await readReservations(db);
    return rows.length === 5 && rows.every((row) => row.state === 'settled') ? rows : undefined;
  });
  expect(reservations.every((row) => nodeNames.includes(row.owner))).toBe(true);
  expect(reservations.map((row) => row.settledAmount)).toEqual([761, 761, 761, 761, 761]);
  const logs = await waitForLogRows(db, 5);
  expect(logs.rows).toBe(5);

  const balances = await readBalances(db, spenderTokenName);
  expect(balances.token).toEqual({ used: 5 * 761, remain: 400, requests: 5 });
  expect(balances.token.used + balances.token.remain).toBe(fiveSpendsGrant);
  expect(balances.user.used + balances.user.quota).toBe(1_000_000_000);
  expect(balances.user.requests).toBe(5);
  const channel = await db.selectFrom('channels').select(['used_quota', 'request_count']).where('name', '=', options.channelName).executeTakeFirstOrThrow();
  expect({ used: Number(channel.used_quota), requests: Number(channel.request_count) }).toEqual({ used: 5 * 761, requests: 5 });
  expect(logs.quota).toBe(balances.token.used);
}
