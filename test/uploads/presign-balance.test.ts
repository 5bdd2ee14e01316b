/**
 * From the misc review: the presign route was served to a key whose token or user had no balance left.
 * Object storage is not metered, so a caller with nothing left could keep uploading. It is now refused
 * the way admission refuses a relayed request it cannot cover: 402 `insufficient_quota`, in the `/api`
 * envelope, before anything is signed — reading the balances as they are now, not as the catalog loaded them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeObjectStore, type FakeObjectStore } from '../fakes/fake-object-store.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const keyOf = (letter: string) => `sk-${letter.repeat(48)}`;
const fundedKey = keyOf('f');
const emptyTokenKey = keyOf('e');
const emptyUserKey = keyOf('u');
const unlimitedKey = keyOf('n');
const drainedKey = keyOf('d');

let s3: FakeObjectStore;
let gateway: TestGateway;

beforeAll(async () => {
  s3 = await startFakeObjectStore({ bucket: 'relay-uploads', accessKeyId: 'AKIDRELAYTEST', secretAccessKey: 'relay-test-secret' });
  gateway = await startTestGateway({
    env: { UPLOAD_S3_ENDPOINT: s3.url, UPLOAD_S3_BUCKET: 'relay-uploads', UPLOAD_S3_ACCESS_KEY_ID: 'AKIDRELAYTEST', UPLOAD_S3_SECRET_ACCESS_KEY: 'relay-test-secret', UPLOAD_S3_REGION: 'us-east-1' },
    config: {
      users: [
        { username: 'funded', role: 'user', group: 'default', quota: 1_000, enabled: true },
        { username: 'broke', role: 'user', group: 'default', quota: 0, enabled: true },
        { username: 'boundless', role: 'user', group: 'default', enabled: true },
      ],
      tokens: [
        { name: 'funded-key', user: 'funded', key: fundedKey, quota: 500, expires_at: 0, enabled: true },
        { name: 'empty-token', user: 'funded', key: emptyTokenKey, quota: 0, expires_at: 0, enabled: true },
        { name: 'drained-key', user: 'funded', key: drainedKey, quota: 7, expires_at: 0, enabled: true },
        { name: 'broke-user-key', user: 'broke', key: emptyUserKey, unlimited_quota: true, expires_at: 0, enabled: true },
        { name: 'unlimited-key', user: 'boundless', key: unlimitedKey, unlimited_quota: true, expires_at: 0, enabled: true },
      ],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await s3?.close();
});

async function presign(key: string): Promise<{ status: number; body: { success: boolean; message: string; data?: { upload_url: string } } }> {
  const response = await fetch(`${gateway.url}/api/upload/presign`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ file_name: 'a.png' }) });
  return { status: response.status, body: (await response.json()) as never };
}

describe('POST /api/upload/presign: balance', () => {
  it('signs for a key whose token and user both have balance, or are unlimited', async () => {
    for (const key of [fundedKey, unlimitedKey]) {
      const answer = await presign(key);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data?.upload_url).toContain(s3.url);
    }
  });

  it('answers 402 insufficient quota when the token has no balance left', async () => {
    const answer = await presign(emptyTokenKey);
    expect(answer.status).toBe(402);
    expect(answer.body).toEqual({ success: false, message: expect.stringContaining('Insufficient quota: this API key has no balance left') });
  });

  it("answers 402 when the token is unlimited but its user's balance is used up", async () => {
    const answer = await presign(emptyUserKey);
    expect(answer.status).toBe(402);
    expect(answer.body).toEqual({ success: false, message: expect.stringContaining('Insufficient quota: your account has no balance left') });
  });

  it('reads the balance as it is now: a token drained after the catalog loaded is refused', async () => {
    expect((await presign(drainedKey)).status).toBe(200);
    const services = gateway.gateway.services;
    const token = (await services.repositories.tokens.list({ page: 1, pageSize: 100 })).items.find((item) => item.name === 'drained-key')!;
    expect(await services.repositories.tokens.adjustQuota(token.id, -7, services.now())).toBe(true);
    const answer = await presign(drainedKey);
    expect(answer.status).toBe(402);
    expect(answer.body.message).toContain('this API key has no balance left');
  });
});
