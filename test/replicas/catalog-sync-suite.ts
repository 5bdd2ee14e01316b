import { afterEach, beforeEach, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { admin, chatStatus, findId, logIn, selfStatus, startReplica, upstreamKey, within } from './replica-fixture.js';

export interface SyncSuiteOptions {
  /** A fresh shared database for each test. */
  freshDatabase(): Promise<{ url: string; drop(): Promise<void> }>;
  env: Record<string, string>;
  /** How soon the other process must see the change (ms). */
  deadlineMs: number;
}

/** Two gateway processes (in this test process) on one database: a change through A shows on B. */
export function catalogSyncSuite(options: SyncSuiteOptions): void {
  let a: TestGateway;
  let b: TestGateway;
  let upstream: FakeOpenaiUpstream;
  let database: { url: string; drop(): Promise<void> };

  beforeEach(async () => {
    database = await options.freshDatabase();
    upstream = await startFakeOpenaiUpstream({ expectedKeys: [upstreamKey] });
    a = await startReplica(database.url, upstream.url, options.env);
    b = await startReplica(database.url, upstream.url, options.env);
    expect(await chatStatus(b.url)).toBe(200);
    // The chat's settlement changes carol's quota: let it land before a test reads the quota.
    await b.settled();
  });
  afterEach(async () => {
    await a?.gateway.close();
    await b?.gateway.close();
    await upstream?.close();
    await database?.drop();
  });

  it('a token disabled through A is refused (401) by B', async () => {
    const id = await findId(a.url, 'tokens', 'carol-key');
    expect((await admin(a.url, 'PUT', `/tokens/${id}`, { enabled: false })).status).toBe(200);
    expect(await within(options.deadlineMs, async () => (await chatStatus(b.url)) === 401)).toBeGreaterThanOrEqual(0);
  });

  it('a price changed through A is charged by B', async () => {
    await b.settled();
    const before = await b.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'carol-key').executeTakeFirstOrThrow();
    expect(await chatStatus(b.url)).toBe(200);
    await b.settled();
    const afterOld = await b.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'carol-key').executeTakeFirstOrThrow();
    const oldCharge = Number(afterOld.used_quota) - Number(before.used_quota);
    expect(oldCharge).toBeGreaterThan(0);
    expect((await admin(a.url, 'PUT', '/prices/gpt-4o-mini', { input: 300, output: 1500 })).status).toBe(200);
    const took = await within(options.deadlineMs, async () => b.gateway.services.catalog.snapshot.prices.get('gpt-4o-mini')?.input === 300);
    expect(took).toBeGreaterThanOrEqual(0);
    expect(await chatStatus(b.url)).toBe(200);
    await b.settled();
    const afterNew = await b.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'carol-key').executeTakeFirstOrThrow();
    expect(Number(afterNew.used_quota) - Number(afterOld.used_quota)).toBeGreaterThan(50 * oldCharge);
  });

  it('a channel disabled through A is no longer used by B (no upstream call)', async () => {
    const id = await findId(a.url, 'channels', 'ch-a');
    expect((await admin(a.url, 'PUT', `/channels/${id}`, { enabled: false })).status).toBe(200);
    expect(await within(options.deadlineMs, async () => (await chatStatus(b.url)) !== 200)).toBeGreaterThanOrEqual(0);
    const calls = upstream.requests.length;
    expect(await chatStatus(b.url)).toBe(503);
    expect(upstream.requests.length).toBe(calls);
  });

  it("a user's quota taken away through A is refused (402) by B", async () => {
    const id = await findId(a.url, 'users', 'carol');
    const user = await admin(a.url, 'GET', `/users/${id}`);
    expect((await admin(a.url, 'POST', `/users/${id}/quota`, { delta: -Number(user.body.data.quota) })).status).toBe(200);
    expect(await within(options.deadlineMs, async () => (await chatStatus(b.url)) === 402)).toBeGreaterThanOrEqual(0);
  });

  // From the multi-process red team: money does not wait for the sync window. B's catalog still shows the
  // old balance, but its reservation is the ledger's guarded UPDATE of the row A just changed.
  it("a token's quota taken away through A is refused (402) by B at once: the ledger reads the row, not B's catalog", async () => {
    const id = await findId(a.url, 'tokens', 'carol-key');
    const token = await admin(a.url, 'GET', `/tokens/${id}`);
    const calls = upstream.requests.length;
    expect((await admin(a.url, 'POST', `/tokens/${id}/quota`, { delta: -Number(token.body.data.quota) })).status).toBe(200);
    expect(await chatStatus(b.url)).toBe(402);
    expect(upstream.requests.length).toBe(calls);
  });

  it("a user's quota given back through A is usable on B, and B's view of the user follows", async () => {
    const id = await findId(a.url, 'users', 'carol');
    const user = await admin(a.url, 'GET', `/users/${id}`);
    const quota = Number(user.body.data.quota);
    await admin(a.url, 'POST', `/users/${id}/quota`, { delta: -quota });
    await admin(a.url, 'POST', `/users/${id}/quota`, { delta: quota });
    expect(await within(options.deadlineMs, async () => b.gateway.services.catalog.snapshot.usersById.get(id)?.quota === quota)).toBeGreaterThanOrEqual(0);
    expect(await chatStatus(b.url)).toBe(200);
  });

  it('a console session logged out through A is refused (401) by B', async () => {
    const cookie = await logIn(b.url, 'carol', 'carol-password');
    expect(await selfStatus(b.url, cookie)).toBe(200);
    expect(await selfStatus(a.url, cookie)).toBe(200);
    const out = await fetch(`${a.url}/api/user/logout`, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(200);
    expect(await selfStatus(a.url, cookie)).toBe(401);
    expect(await within(options.deadlineMs, async () => (await selfStatus(b.url, cookie)) === 401)).toBeGreaterThanOrEqual(0);
  });

  it("a password changed through A ends the user's console session on B (401); B logs in with the new password only", async () => {
    const cookie = await logIn(b.url, 'carol', 'carol-password');
    expect(await selfStatus(b.url, cookie)).toBe(200);
    const id = await findId(a.url, 'users', 'carol');
    expect((await admin(a.url, 'PUT', `/users/${id}`, { password: 'carol-new-password' })).status).toBe(200);
    expect(await selfStatus(a.url, cookie)).toBe(401);
    expect(await within(options.deadlineMs, async () => (await selfStatus(b.url, cookie)) === 401)).toBeGreaterThanOrEqual(0);
    expect((await logInStatus(b.url, 'carol', 'carol-password'))).toBe(401);
    const fresh = await logIn(b.url, 'carol', 'carol-new-password');
    expect(await selfStatus(b.url, fresh)).toBe(200);
  });

  it("a user disabled through A loses its console session on B (401) and cannot log in there", async () => {
    const cookie = await logIn(b.url, 'carol', 'carol-password');
    expect(await selfStatus(b.url, cookie)).toBe(200);
    const id = await findId(a.url, 'users', 'carol');
    expect((await admin(a.url, 'PUT', `/users/${id}`, { enabled: false })).status).toBe(200);
    expect(await within(options.deadlineMs, async () => (await selfStatus(b.url, cookie)) === 401)).toBeGreaterThanOrEqual(0);
    expect(await logInStatus(b.url, 'carol', 'carol-password')).not.toBe(200);
  });

  it("an admin lowered to user through A loses B's admin API: the old session is refused (401), a new one is forbidden (403)", async () => {
    const id = await findId(a.url, 'users', 'carol');
    expect((await admin(a.url, 'PUT', `/users/${id}`, { role: 'admin' })).status).toBe(200);
    expect(await within(options.deadlineMs, async () => b.gateway.services.catalog.snapshot.usersById.get(id)?.role === 'admin')).toBeGreaterThanOrEqual(0);
    const cookie = await logIn(b.url, 'carol', 'carol-password');
    expect(await adminStatus(b.url, cookie)).toBe(200);
    expect((await admin(a.url, 'PUT', `/users/${id}`, { role: 'user' })).status).toBe(200);
    expect(await within(options.deadlineMs, async () => (await adminStatus(b.url, cookie)) === 401)).toBeGreaterThanOrEqual(0);
    expect(await selfStatus(b.url, cookie)).toBe(401);
    const fresh = await logIn(b.url, 'carol', 'carol-password');
    expect(await selfStatus(b.url, fresh)).toBe(200);
    expect(await adminStatus(b.url, fresh)).toBe(403);
  });

  it('a user disabled through A is refused (403) by B', async () => {
    const id = await findId(a.url, 'users', 'carol');
    expect((await admin(a.url, 'PUT', `/users/${id}`, { enabled: false })).status).toBe(200);
    expect(await within(options.deadlineMs, async () => (await chatStatus(b.url)) === 403)).toBeGreaterThanOrEqual(0);
  });
}

/** The status of a login attempt (200 or the refusal). */
async function logInStatus(url: string, username: string, password: string): Promise<number> {
  return (await fetch(`${url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) })).status;
}

/** The status of a console session's read of the admin API (the user list). */
async function adminStatus(url: string, cookie: string): Promise<number> {
  return (await fetch(`${url}/api/admin/users`, { headers: { cookie } })).status;
}
