import { expect } from 'vitest';
import type { BillingFixture } from '../billing-edges/billing-fixture.js';

/**
 * The books every billed request must leave, checked after `work` ran (or threw): one new log row, no
 * reservation left open, the reservation settled at the row's charge, the token wallet moved by exactly it.
 */
export async function booked<T>(fixture: BillingFixture, work: () => Promise<T>): Promise<{ result: T | undefined; error: any; row: any; charged: number }> {
  const logsBefore = (await fixture.logs()).length;
  const before = await fixture.balances();
  let result: T | undefined;
  let error: any;
  try {
    result = await work();
  } catch (caught) {
    error = caught;
  }
  // A client abort settles after the socket closes: give the gateway a moment before waiting on it.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const row = await settledRow(fixture, logsBefore);
  const after = await fixture.balances();
  expect(after.tokenUsed - before.tokenUsed, 'token used moved by the row charge').toBe(row.quota);
  expect(before.tokenRemain - after.tokenRemain, 'token balance moved by the row charge').toBe(row.quota);
  return { result, error, row, charged: row.quota };
}

/** The request's one new log row (there were `logsBefore`), once no reservation is open and its own is settled at the row's charge. */
export async function settledRow(fixture: BillingFixture, logsBefore: number): Promise<any> {
  await fixture.settled();
  const logs = await fixture.logs();
  expect(logs.length - logsBefore, 'one log row per request').toBe(1);
  const row = logs.at(-1);
  const reservations = await fixture.reservations();
  expect(reservations.filter((r) => r.state === 'reserved'), 'no reservation left open').toEqual([]);
  expect(reservations.find((r) => r.id === row.request_id)?.settled_amount, 'reservation settled at the row charge').toBe(row.quota);
  return row;
}
