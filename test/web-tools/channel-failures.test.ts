/**
 * UniFuncs answers its own failures with HTTP 200 and a `code` (protocols.md §12.1). Those about the
 * channel — a dead key, a disabled account, no balance, its rate limit, its server — are tried on another
 * channel, and a dead key or account is set aside as a 401 / 402 would be; those about the request reach
 * the client as sent, free (docs/behaviour.md "Web reader and search"). Each test has its own gateway in
 * front of two scripted UniFuncs channels: `main` (priority 10, auto-disable on) and `spare`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { readerCharge, readerKey, readerPrice } from './web-tools-fixture.js';

interface Setup {
  gateway: TestGateway;
  main: ScriptedUpstream;
  spare: ScriptedUpstream;
}
let setup: Setup | undefined;

async function start(): Promise<Setup> {
  const [main, spare] = await Promise.all([startScriptedUpstream(), startScriptedUpstream()]);
  const channel = { type: 'openai' as const, models: ['web-reader'], groups: ['default'], weight: 1, model_mapping: {}, enabled: true, settings: {} };
  const gateway = await startTestGateway({
    config: {
      retry_times: 1,
      prices: { 'web-reader': { per_call: readerPrice } },
      channels: [
        { ...channel, name: 'main', base_url: main.url, key: 'sk-unifuncs-main', priority: 10, auto_disable: true },
        { ...channel, name: 'spare', base_url: spare.url, key: 'sk-unifuncs-spare', priority: 0, auto_disable: false },
      ],
      users: [{ username: 'reader', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [{ name: 'reader-key', user: 'reader', key: readerKey, quota: 1_000_000_000, expires_at: 0, enabled: true }],
    },
  });
  setup = { gateway, main, spare };
  return setup;
}
afterEach(async () => {
  if (setup === undefined) return;
  await setup.gateway.close();
  await Promise.all([setup.main.close(), setup.spare.close()]);
  setup = undefined;
});

async function read(s: Setup): Promise<{ response: Response; text: string; charge: number }> {
  const used = async () => {
    await s.gateway.settled();
    const row = await s.gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'reader-key').executeTakeFirstOrThrow();
    return Number(row.used_quota);
  };
  const before = await used();
  const response = await fetch(`${s.gateway.url}/v1/web-reader/read`, { method: 'POST', headers: { authorization: `Bearer ${readerKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://example.com', format: 'json' }) });
  const text = await response.text();
  return { response, text, charge: (await used()) - before };
}
const mainStatus = (s: Setup) => s.gateway.gateway.services.catalog.snapshot.channels.find((channel) => channel.name === 'main')?.status;
const page = { code: 0, message: '', data: { title: 'Example', content: 'text' } };

describe('UniFuncs failures about the channel', () => {
  it.each([
    [-20025, 'insufficient balance'],
    [-20021, 'invalid or expired key'],
    [-20014, 'account disabled'],
  ])('code %i (%s) fails over, charges once, and disables the dead channel', async (code, message) => {
    const s = await start();
    s.main.enqueue({ json: { code, message, data: null } });
    s.spare.enqueue({ json: page });
    const { response, text, charge } = await read(s);
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toEqual(page);
    expect(charge).toBe(readerCharge);
    await expect.poll(() => mainStatus(s)).not.toBe('enabled');
  });

  it.each([
    [-20033, 'rate limited'],
    [-20001, 'server error'],
    [-20011, 'no permission'],
  ])('code %i (%s) fails over and charges once, without disabling the channel', async (code, message) => {
    const s = await start();
    s.main.enqueue({ json: { code, message, data: null } });
    s.spare.enqueue({ json: page });
    const { text, charge } = await read(s);
    expect(JSON.parse(text)).toEqual(page);
    expect(charge).toBe(readerCharge);
    await s.gateway.settled();
    expect(mainStatus(s)).toBe('enabled');
  });

  it('when every channel fails so, the client gets an error in its envelope, free, without any key in it', async () => {
    const s = await start();
    s.main.enqueue({ json: { code: -20001, message: 'server error for sk-unifuncs-main', data: null } });
    s.spare.enqueue({ json: { code: -20033, message: 'rate limited', data: null } });
    const { response, text, charge } = await read(s);
    expect(response.status).toBeGreaterThanOrEqual(429);
    const body = JSON.parse(text) as { error: { message: string } };
    expect(body.error.message).toMatch(/web tool upstream refused the call \(code -20033/);
    expect(text).not.toContain('sk-unifuncs');
    expect(charge).toBe(0);
  });
});

describe('UniFuncs failures about the request', () => {
  it('a bad URL or a failed fetch reaches the client as sent, free, and is not tried elsewhere', async () => {
    const s = await start();
    const failed = { code: -30001, message: 'fetch failed', data: null };
    s.main.enqueue({ json: failed });
    const { response, text, charge } = await read(s);
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toEqual(failed);
    expect(charge).toBe(0);
    expect(s.spare.requests).toHaveLength(0);
    expect(mainStatus(s)).toBe('enabled');
  });
});
