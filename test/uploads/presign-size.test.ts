/**
 * Upload sizes (docs/behaviour.md "Upload presign"): a `content_length` is signed into the URL, so the
 * storage takes a file of exactly that size; with UPLOAD_MAX_MB set it is required and bounded. Against
 * the fake path-style S3 (test/fakes/fake-object-store.ts), which checks signed headers as S3 does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeObjectStore, type FakeObjectStore } from '../fakes/fake-object-store.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'z'.repeat(48)}`;
const storage = { bucket: 'relay-uploads', accessKeyId: 'AKIDRELAYSIZE', secretAccessKey: 'relay-size-secret' };
let s3: FakeObjectStore;
let limited: TestGateway;
let open: TestGateway;

async function gatewayWith(extra: Record<string, string>): Promise<TestGateway> {
  return startTestGateway({
    env: { UPLOAD_S3_ENDPOINT: s3.url, UPLOAD_S3_BUCKET: storage.bucket, UPLOAD_S3_ACCESS_KEY_ID: storage.accessKeyId, UPLOAD_S3_SECRET_ACCESS_KEY: storage.secretAccessKey, ...extra },
    config: {
      users: [{ username: 'uploader', role: 'user', group: 'default', quota: 1_000_000, enabled: true }],
      tokens: [{ name: 'uploader-key', user: 'uploader', key: clientKey, quota: 1_000_000, expires_at: 0, enabled: true }],
    },
  });
}
beforeAll(async () => {
  s3 = await startFakeObjectStore(storage);
  [limited, open] = await Promise.all([gatewayWith({ UPLOAD_MAX_MB: '1' }), gatewayWith({})]);
});
afterAll(async () => {
  await Promise.all([limited?.close(), open?.close()]);
  await s3?.close();
});

async function presign(gateway: TestGateway, body: unknown) {
  const response = await fetch(`${gateway.url}/api/upload/presign`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as { success: boolean; message: string; data: { upload_url: string; content_type: string; content_length?: number } } };
}

describe('upload sizes', () => {
  it('signs the size given: the storage takes that size and refuses any other', async () => {
    const { status, json } = await presign(open, { file_name: 'a.png', content_length: 10 });
    expect(status).toBe(200);
    expect(json.data.content_length).toBe(10);
    const put = (bytes: number) => fetch(json.data.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: Buffer.alloc(bytes, 1) });
    expect((await put(11)).status).toBe(403);
    expect((await put(9)).status).toBe(403);
    expect((await put(10)).status).toBe(200);
  });

  it('without a limit, a presign without a size is unsigned for size, as before', async () => {
    const { status, json } = await presign(open, { file_name: 'a.png' });
    expect(status).toBe(200);
    expect(json.data.content_length).toBeUndefined();
    expect((await fetch(json.data.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: Buffer.alloc(3000) })).status).toBe(200);
  });

  it('with UPLOAD_MAX_MB, the size is required and bounded', async () => {
    expect(await presign(limited, { file_name: 'a.png' })).toMatchObject({ status: 400, json: { success: false, message: expect.stringMatching(/content_length/) } });
    expect(await presign(limited, { file_name: 'a.png', content_length: 1024 * 1024 + 1 })).toMatchObject({ status: 400, json: { message: expect.stringMatching(/upload limit of 1048576 bytes/) } });
    const inside = await presign(limited, { file_name: 'a.png', content_length: 1024 * 1024 });
    expect(inside.status).toBe(200);
    expect(inside.json.data.content_length).toBe(1024 * 1024);
  });

  it.each([0, -1, 1.5, '10', true])('refuses content_length %j', async (value) => {
    expect((await presign(open, { content_length: value })).status).toBe(400);
  });
});
