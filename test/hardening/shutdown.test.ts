/**
 * A shutdown with a stalled stream in flight. test/billing-e2e/log-flush.test.ts covers streams that finish
 * on their own during the drain; this covers one whose upstream stops sending (stalled, not closed).
 * close() (what SIGTERM runs) waits SHUTDOWN_TIMEOUT seconds for requests in flight, then cuts the upstream
 * calls and client connections still open; their reservations settle as interrupted requests do.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createDatabase } from '../../src/storage/create-database.js';
import { chatStream } from '../fakes/scripted-vendor-wire.js';
import { clientKey, startHardeningFixture, type HardeningFixture } from './hardening-fixture.js';

let f: HardeningFixture | undefined;
afterAll(async () => {
  // The test closes the gateway itself; the upstreams and the database file are left.
  await Promise.all([f?.openai.close(), f?.anthropic.close(), f?.gemini.close()]);
  if (f !== undefined) rmSync(dirname(f.gateway.databaseUrl.slice('sqlite:'.length)), { recursive: true, force: true });
});

it('close() with a stalled stream in flight returns after SHUTDOWN_TIMEOUT (2 s), cuts the client, and leaves no reservation open', { timeout: 40_000 }, async () => {
  f = await startHardeningFixture({ env: { SHUTDOWN_TIMEOUT: '2' } });
  const fixture = f;
  // Two content events, then silence with the connection open.
  const stalled = chatStream({ text: ['Hel', 'lo'], usage: { input: 3, output: 2 } }, { terminal: false });
  fixture.openai.enqueue({ ...stalled, ending: 'hang' });
  const client = new AbortController();
  const response = await fetch(`${fixture.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    signal: client.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  await reader.read(); // the stream is under way
  const db = fixture.gateway.gateway.services.database.db;
  expect((await db.selectFrom('quota_reservations').select('state').execute()).map((row) => row.state)).toEqual(['reserved']);

  const started = Date.now();
  const closing = fixture.gateway.gateway.close();
  const outcome = await Promise.race([closing.then(() => 'closed' as const), new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 10_000))]);
  const elapsed = Date.now() - started;
  if (outcome === 'still open') {
    // Unblock the drain so the test can clean up: the client leaves, which aborts the upstream call.
    client.abort();
    await closing.catch(() => undefined);
  }
  expect(outcome).toBe('closed');
  expect(elapsed, `close() took ${elapsed} ms`).toBeGreaterThanOrEqual(1_900);
  expect(elapsed, `close() took ${elapsed} ms`).toBeLessThan(6_000);

  // The client's connection was cut: its stream ends (or fails) without waiting for the upstream.
  const drain = async () => {
    try {
      while (!(await reader.read()).done);
      return 'ended';
    } catch {
      return 'cut';
    }
  };
  const stream = await Promise.race([drain(), new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 2_000))]);
  expect(stream).not.toBe('still open');
  client.abort();

  const reopened = await createDatabase(fixture.gateway.databaseUrl);
  try {
    const reservations = await reopened.db.selectFrom('quota_reservations').select('state').execute();
    expect(reservations.map((row) => row.state)).toEqual(['settled']);
    // Billed as an interrupted stream: the prompt (tokens('hi') + 4) and the delivered text counted locally;
    // (5 × $1 + 1 × $2) per 1M × 500 000 = 3.5 → 4.
    const logs = await reopened.db.selectFrom('logs').select(['status', 'usage_source', 'input_tokens', 'output_tokens', 'quota', 'error']).execute();
    expect(logs).toMatchObject([{ status: 200, usage_source: 'local', input_tokens: 5, output_tokens: 1, quota: 4, error: expect.stringMatching(/interrupted/) }]);
    const token = await reopened.db.selectFrom('tokens').select('used_quota').where('name', '=', 'caller-key').executeTakeFirstOrThrow();
    expect(Number(token.used_quota)).toBe(4);
  } finally {
    await reopened.close();
  }
});
