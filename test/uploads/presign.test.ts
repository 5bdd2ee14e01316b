/**
 * Spec §4.10 / §2.8: POST /api/upload/presign against a fake path-style S3 (test/fakes/fake-object-store.ts)
 * that stores a PUT only when its SigV4 query signature and expiry check out, as S3 does. The client uploads
 * with `fetch`, as a browser would: a presigned URL is plain HTTP, and no SDK is involved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeObjectStore, type FakeObjectStore } from '../fakes/fake-object-store.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'p'.repeat(48)}`;
let s3: FakeObjectStore;
let s3Url: string;
let gateway: TestGateway;
let clock = Date.now();
let userId: number;

beforeAll(async () => {
  s3 = await startFakeObjectStore({ bucket: 'relay-uploads', accessKeyId: 'AKIDRELAYTEST', secretAccessKey: 'relay-test-secret/key+1' });
  s3Url = s3.url;
  gateway = await startTestGateway({
    now: () => clock,
    env: { UPLOAD_S3_ENDPOINT: s3Url, UPLOAD_S3_BUCKET: 'relay-uploads', UPLOAD_S3_ACCESS_KEY_ID: 'AKIDRELAYTEST', UPLOAD_S3_SECRET_ACCESS_KEY: 'relay-test-secret/key+1', UPLOAD_S3_REGION: 'eu-west-3' },
    config: {
      users: [{ username: 'uploader', role: 'user', group: 'default', quota: 1_000_000, enabled: true }],
      tokens: [{ name: 'uploader-key', user: 'uploader', key: clientKey, quota: 1_000_000, expires_at: 0, enabled: true }],
    },
  });
  userId = (await gateway.gateway.services.repositories.users.getByUsername('uploader'))!.id;
});
afterAll(async () => {
  await gateway?.close();
  await s3?.close();
});

interface PresignAnswer {
  success: boolean;
  message: string;
  data: { method: string; upload_url: string; object_key: string; public_url: string; expires_in: number; content_type: string };
}

async function presign(body: unknown, key = clientKey): Promise<{ status: number; json: PresignAnswer }> {
  const response = await fetch(`${gateway.url}/api/upload/presign`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as PresignAnswer };
}

describe('POST /api/upload/presign', () => {
  it('signs a PUT the storage accepts; the file is then readable at public_url', async () => {
    const { status, json } = await presign({ file_name: 'Cat Photo.PNG', content_type: 'image/png' });
    expect(status).toBe(200);
    expect(json.success).toBe(true);
    expect(json.message).toBe('');
    const { data } = json;
    expect(data).toMatchObject({ method: 'PUT', expires_in: 900, content_type: 'image/png' });
    expect(data.object_key).toMatch(new RegExp(`^uploads/user/${userId}/[0-9a-f]{32}\\.png$`));
    expect(data.public_url).toBe(`${s3Url}/relay-uploads/${data.object_key}`);
    const file = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 250, 251, 252]);
    const put = await fetch(data.upload_url, { method: 'PUT', headers: { 'content-type': data.content_type }, body: file });
    expect(put.status).toBe(200);
    const read = await fetch(data.public_url);
    expect(read.status).toBe(200);
    expect(Buffer.from(await read.arrayBuffer())).toEqual(file);
    expect(read.headers.get('content-type')).toBe('image/png');
  });

  it('the signature binds the content type, the object key and the lifetime: changing any is refused by the storage', async () => {
    const { data } = (await presign({ file_name: 'a.mp4' })).json;
    expect(data.content_type).toBe('video/mp4');
    const wrongType = await fetch(data.upload_url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: 'x' });
    expect(wrongType.status).toBe(403);
    const otherKey = await fetch(data.upload_url.replace(data.object_key.split('/').at(-1)!, 'other.mp4'), { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: 'x' });
    expect(otherKey.status).toBe(403);
    const longer = new URL(data.upload_url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    expect((await fetch(longer, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: 'x' })).status).toBe(403);
    expect(s3.refusals.slice(-3)).toEqual(['signature does not match', 'signature does not match', 'signature does not match']);
    const right = await fetch(data.upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: 'x' });
    expect(right.status).toBe(200);
  });

  it('an URL past its expires_in is refused by the storage', async () => {
    const saved = clock;
    clock = Date.now() - 2 * 3600 * 1000;
    const { data } = (await presign({ file_name: 'late.png', expires_in: 60 })).json;
    clock = saved;
    expect(data.expires_in).toBe(60);
    const late = await fetch(data.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: 'x' });
    expect(late.status).toBe(403);
    expect(s3.refusals.at(-1)).toBe('expired');
  });

  it('defaults with an empty body; expires_in is clamped to 60–3600; a client prefix sorts files within the caller’s own space', async () => {
    const empty = await presign({});
    expect(empty.json.data).toMatchObject({ content_type: 'application/octet-stream', expires_in: 900 });
    expect(empty.json.data.object_key).toMatch(new RegExp(`^uploads/user/${userId}/[0-9a-f]{32}$`));
    expect((await presign({ expires_in: 5 })).json.data.expires_in).toBe(60);
    expect((await presign({ expires_in: 86_400 })).json.data.expires_in).toBe(3600);
    const prefixed = (await presign({ prefix: 'videos/refs/', file_name: 'clip.webm' })).json.data;
    expect(prefixed.object_key).toMatch(new RegExp(`^uploads/user/${userId}/videos/refs/[0-9a-f]{32}\\.webm$`));
    const put = await fetch(prefixed.upload_url, { method: 'PUT', headers: { 'content-type': 'video/webm' }, body: 'webm' });
    expect(put.status).toBe(200);
  });

  it('bad fields → 400 in the /api envelope; no key → 401', async () => {
    for (const [body, field] of [[{ prefix: '../etc' }, 'prefix'], [{ prefix: '/abs' }, 'prefix'], [{ prefix: 'a//b' }, 'prefix'], [{ content_type: 'not a type' }, 'content_type'], [{ expires_in: '60' }, 'expires_in'], [{ file_name: 5 }, 'file_name']] as const) {
      const { status, json } = await presign(body);
      expect(status).toBe(400);
      expect(json.success).toBe(false);
      expect(json.message).toContain(field);
    }
    const response = await fetch(`${gateway.url}/api/upload/presign`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { success: boolean }).success).toBe(false);
  });
});

describe('without UPLOAD_S3_* settings', () => {
  it('answers 501 in the /api envelope', async () => {
    const plain = await startTestGateway({
      config: { users: [{ username: 'u2', role: 'user', group: 'default', quota: 1, enabled: true }], tokens: [{ name: 'k2', user: 'u2', key: clientKey, quota: 1, expires_at: 0, enabled: true }] },
    });
    try {
      const response = await fetch(`${plain.url}/api/upload/presign`, { method: 'POST', headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(501);
      expect(await response.json()).toMatchObject({ success: false });
    } finally {
      await plain.close();
    }
  });
});
