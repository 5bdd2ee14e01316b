import { signerFactory } from '@fastify/cookie';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdmin, callGateway, logIn } from '../admin/admin-client.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/**
 * From the isolation audit: the default install (`npm start`, no SESSION_SECRET) signed console cookies with
 * a constant in the public source, so anyone could mint a root session (`1.<expiry>.0`: root is user 1,
 * session version 0) and with it an unlimited root key. Unset, the secret is now generated at the first
 * start and kept in the database.
 */
const publicDefaultSecret = 'unified-relay-insecure-default-secret';
const noSecrets = { SESSION_SECRET: '', CRYPTO_SECRET: '' };

function rootCookie(secret: string): string {
  return `relay_session=${encodeURIComponent(signerFactory(secret).sign(`1.${Math.floor(Date.now() / 1000) + 3600}.0`))}`;
}

describe('console sessions on an install without SESSION_SECRET', () => {
  let first: TestGateway;
  let second: TestGateway;
  let other: TestGateway;

  beforeAll(async () => {
    first = await startTestGateway({ env: noSecrets });
    // A second process on the same database (a worker, a replica), and another install.
    second = await startTestGateway({ env: { ...noSecrets, SYNC_FREQUENCY: '1' }, databaseUrl: first.databaseUrl });
    other = await startTestGateway({ env: noSecrets });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await other?.close();
  });

  it('refuses a root cookie signed with the built-in secret earlier versions used: no session, no key minted', async () => {
    const cookie = rootCookie(publicDefaultSecret);
    const self = await callGateway(first, 'GET', '/api/user/self', { headers: { cookie } });
    const minted = await callGateway(first, 'POST', '/api/admin/tokens', { headers: { cookie }, body: { name: 'stolen', unlimited_quota: true } });
    expect({ self: self.status, mint: minted.status, key: minted.body?.data?.key }).toEqual({ self: 401, mint: 401, key: undefined });
  });

  it('generates a secret of its own per install, shared by every process on the database', () => {
    const secret = first.gateway.services.sessionSecret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.gateway.services.sessionSecret).toBe(secret);
    expect(other.gateway.services.sessionSecret).not.toBe(secret);
  });

  it('keeps a login valid on the other process, and refuses another install\'s cookie', async () => {
    await callAdmin(first, 'POST', '/api/admin/users', { body: { username: 'ada', password: 'ada-password' } });
    const session = await logIn(first, 'ada', 'ada-password');
    // The second process learns of the new user at its next catalog poll (every second here).
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 50 && statuses.at(-1) !== 200; attempt += 1) {
      if (attempt > 0) await sleep(100);
      statuses.push((await callGateway(second, 'GET', '/api/user/self', { headers: { cookie: session } })).status);
    }
    expect(statuses.at(-1)).toBe(200);
    // The same user id signed by another install's secret is not a session here.
    const foreign = rootCookie(other.gateway.services.sessionSecret);
    expect((await callGateway(first, 'GET', '/api/user/self', { headers: { cookie: foreign } })).status).toBe(401);
  });

  it('uses SESSION_SECRET when it is set', async () => {
    const configured = await startTestGateway({ env: { SESSION_SECRET: 'operator-session-secret' } });
    try {
      expect(configured.gateway.services.sessionSecret).toBe('operator-session-secret');
      expect((await callGateway(configured, 'GET', '/api/user/self', { headers: { cookie: rootCookie('operator-session-secret') } })).status).toBe(200);
    } finally {
      await configured.close();
    }
  });
});
