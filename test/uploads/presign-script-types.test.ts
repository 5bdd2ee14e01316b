/**
 * From the auth audit: presign refuses text/html so a planted page cannot run script from the operator's
 * public storage origin (plan-upload.ts: "HTML or scripts served from the operator's storage are not").
 * image/svg+xml is the same vector: an SVG opened from its public URL runs its <script>.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeObjectStore, type FakeObjectStore } from '../fakes/fake-object-store.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'s'.repeat(48)}`;
let s3: FakeObjectStore;
let gateway: TestGateway;

beforeAll(async () => {
  s3 = await startFakeObjectStore({ bucket: 'relay-uploads', accessKeyId: 'AKIDRELAYTEST', secretAccessKey: 'relay-test-secret' });
  gateway = await startTestGateway({
    env: { UPLOAD_S3_ENDPOINT: s3.url, UPLOAD_S3_BUCKET: 'relay-uploads', UPLOAD_S3_ACCESS_KEY_ID: 'AKIDRELAYTEST', UPLOAD_S3_SECRET_ACCESS_KEY: 'relay-test-secret' },
    config: {
      users: [{ username: 'mallory', role: 'user', group: 'default', quota: 1_000_000, enabled: true }],
      tokens: [{ name: 'mallory-key', user: 'mallory', key: clientKey, quota: 1_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await s3?.close();
});

describe('presign content types that execute script', () => {
  for (const type of ['image/svg+xml', 'IMAGE/SVG+XML']) {
    it(`a ${type} upload cannot be served back as a scriptable SVG from the public URL`, async () => {
      const response = await fetch(`${gateway.url}/api/upload/presign`, {
        method: 'POST',
        headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ file_name: 'x.svg', content_type: type }),
      });
      const json = (await response.json()) as { data?: { upload_url: string; public_url: string; content_type: string } };
      let served: string | null = null;
      if (response.status === 200 && json.data !== undefined) {
        await fetch(json.data.upload_url, { method: 'PUT', headers: { 'content-type': json.data.content_type }, body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>' });
        served = (await fetch(json.data.public_url)).headers.get('content-type');
      }
      expect(served?.toLowerCase()).not.toBe('image/svg+xml');
    });
  }
});
