/**
 * what a plain user's API key can place in the operator's bucket through
 * POST /api/upload/presign. Spec §4.10: `prefix` defaults to `uploads/user/{id}` "for the calling user";
 * the uploads exist so image and video requests can name them (spec §4.10, §4.7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeObjectStore, type FakeObjectStore } from '../fakes/fake-object-store.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'s'.repeat(48)}`;
let s3: FakeObjectStore;
let gateway: TestGateway;
let userId: number;
let rootId: number;

beforeAll(async () => {
  s3 = await startFakeObjectStore({ bucket: 'relay-uploads', accessKeyId: 'AKIDRELAYTEST', secretAccessKey: 'relay-test-secret' });
  gateway = await startTestGateway({
    env: { UPLOAD_S3_ENDPOINT: s3.url, UPLOAD_S3_BUCKET: 'relay-uploads', UPLOAD_S3_ACCESS_KEY_ID: 'AKIDRELAYTEST', UPLOAD_S3_SECRET_ACCESS_KEY: 'relay-test-secret' },
    config: {
      users: [{ username: 'mallory', role: 'user', group: 'default', quota: 1_000_000, enabled: true }],
      tokens: [{ name: 'mallory-key', user: 'mallory', key: clientKey, quota: 1_000_000, expires_at: 0, enabled: true }],
    },
  });
  userId = (await gateway.gateway.services.repositories.users.getByUsername('mallory'))!.id;
  rootId = userId === 1 ? 2 : 1;
});
afterAll(async () => {
  await gateway?.close();
  await s3?.close();
});

async function presign(body: unknown) {
  const response = await fetch(`${gateway.url}/api/upload/presign`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as { success: boolean; data?: { upload_url: string; object_key: string; public_url: string; content_type: string } } };
}

describe('presign stays in the caller’s space', () => {
  it("a plain user cannot obtain a signed PUT into another user's space or outside uploads/user/{own id}", async () => {
    const keys: string[] = [];
    for (const prefix of [`uploads/user/${rootId}`, 'static/js', 'index']) {
      const { status, json } = await presign({ file_name: 'x.png', prefix });
      if (status === 200 && json.data !== undefined) {
        const put = await fetch(json.data.upload_url, { method: 'PUT', headers: { 'content-type': json.data.content_type }, body: 'planted' });
        if (put.status === 200) keys.push(json.data.object_key);
      }
    }
    expect(keys.filter((key) => !key.startsWith(`uploads/user/${userId}/`))).toEqual([]);
  });

  it('an upload meant for image/video requests cannot be served back as text/html from the public URL', async () => {
    const { status, json } = await presign({ file_name: 'page.html', content_type: 'text/html' });
    let served: string | null = null;
    if (status === 200 && json.data !== undefined) {
      await fetch(json.data.upload_url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: '<script>alert(document.domain)</script>' });
      served = (await fetch(json.data.public_url)).headers.get('content-type');
    }
    expect(served).not.toBe('text/html');
  });
});
