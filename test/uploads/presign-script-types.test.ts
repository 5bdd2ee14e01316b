/**
 * From the auth audit: presign refuses text/html so a planted page cannot run script from the operator's
 * public storage origin (plan-upload.ts: "HTML or scripts served from the operator's storage are not").
 * image/svg+xml is the same vector: an SVG opened from its public URL runs its <script>.
 * From the side audit: so is any XML type. Browsers render every `*\/*+xml` type (an "XML MIME type", HTML
 * spec §7.4 navigation) as an XML document, where `<html xmlns="http://www.w3.org/1999/xhtml"><script>`
 * runs: `image/x+xml`, `video/mp4+xml`, `audio/html+xml` passed the image/video/audio pattern. And a key
 * ending `.html` (or another document or script extension) is refused whatever type it is signed with.
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

const presign = async (body: Record<string, unknown>) => {
  const response = await fetch(`${gateway.url}/api/upload/presign`, {
    method: 'POST',
    headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as { success?: boolean; message?: string; data?: { upload_url: string; public_url: string; content_type: string } } };
};

const xhtml = '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(document.domain)</script></html>';

describe('presign content types that browsers render as XML documents', () => {
  for (const type of ['image/x+xml', 'video/mp4+xml', 'audio/html+xml']) {
    it(`a ${type} upload cannot be served back with that scriptable XML type from the public URL`, async () => {
      const { status, json } = await presign({ file_name: 'x.png', content_type: type });
      let served: string | null = null;
      if (status === 200 && json.data !== undefined) {
        const put = await fetch(json.data.upload_url, { method: 'PUT', headers: { 'content-type': json.data.content_type }, body: xhtml });
        expect(put.status).toBe(200);
        served = (await fetch(json.data.public_url)).headers.get('content-type');
      }
      expect(served?.toLowerCase() ?? '').not.toMatch(/xml/);
    });
  }

  it('refuses every XML type with a 400 naming content_type', async () => {
    for (const type of ['image/x+xml', 'VIDEO/MP4+XML', 'audio/html+xml', 'image/xml', 'video/x-xml', 'image/xml-dtd', 'text/xml', 'application/xml', 'application/xhtml+xml', 'text/html']) {
      const { status, json } = await presign({ content_type: type });
      expect({ type, status }).toEqual({ type, status: 400 });
      expect(json.success).toBe(false);
      expect(json.message).toContain('content_type');
    }
  });

  it('still takes the image, video and audio types uploads are for', async () => {
    for (const type of ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'video/mp4', 'video/quicktime', 'audio/mpeg', 'audio/wav', 'application/octet-stream']) {
      expect({ type, status: (await presign({ content_type: type })).status }).toEqual({ type, status: 200 });
    }
  });
});

describe('presign keys whose extension names a page or a script', () => {
  it('refuses them with a 400 naming file_name, whatever the content type', async () => {
    for (const name of ['x.html', 'x.HTM', 'x.xhtml', 'x.svg', 'x.xml', 'x.js', 'x.mjs']) {
      const { status, json } = await presign({ file_name: name, content_type: 'image/png' });
      expect({ name, status }).toEqual({ name, status: 400 });
      expect(json.message).toContain('file_name');
    }
  });

  it('keeps the extensions of the files uploads are for', async () => {
    for (const name of ['photo.PNG', 'clip.mp4', 'voice.mp3', 'scan.html.png', 'archive']) {
      expect({ name, status: (await presign({ file_name: name })).status }).toEqual({ name, status: 200 });
    }
  });
});
