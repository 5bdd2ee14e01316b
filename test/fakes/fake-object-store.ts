/**
 * A path-style S3 stand-in for presigned uploads: `PUT /{bucket}/{key}?X-Amz-…` is stored only when its SigV4
 * query signature checks out (verify-sigv4-query.ts) — else 403 with S3's error code, as S3 answers — and
 * `GET /{bucket}/{key}` reads an object back without credentials (a public bucket).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySigV4Query } from './verify-sigv4-query.js';
import { closeServer } from './fake-http-helpers.js';

export interface StoredObject {
  bytes: Buffer;
  contentType: string | undefined;
}

export interface FakeObjectStore {
  url: string;
  objects: Map<string, StoredObject>;
  /** Why each refused request was refused, in order. */
  refusals: string[];
  close(): Promise<void>;
}

export async function startFakeObjectStore(options: { bucket: string; accessKeyId: string; secretAccessKey: string; now?: () => number }): Promise<FakeObjectStore> {
  const objects = new Map<string, StoredObject>();
  const refusals: string[] = [];
  const secrets = new Map([[options.accessKeyId, options.secretAccessKey]]);
  const now = options.now ?? Date.now;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = decodeURIComponent(new URL(request.url ?? '/', 'http://store').pathname);
      const bucketPrefix = `/${options.bucket}/`;
      if (!path.startsWith(bucketPrefix)) return void response.writeHead(404).end('<Error><Code>NoSuchBucket</Code></Error>');
      const key = path.slice(bucketPrefix.length);
      if (request.method === 'GET') {
        const found = objects.get(key);
        if (found === undefined) return void response.writeHead(404).end('<Error><Code>NoSuchKey</Code></Error>');
        return void response.writeHead(200, { 'content-type': found.contentType ?? 'binary/octet-stream' }).end(found.bytes);
      }
      if (request.method !== 'PUT') return void response.writeHead(405).end();
      const check = verifySigV4Query({ method: 'PUT', url: request.url ?? '/', headers: request.headers }, secrets, now());
      if (!check.ok) {
        refusals.push(check.reason);
        const code = check.reason === 'expired' ? 'AccessDenied' : 'SignatureDoesNotMatch';
        return void response.writeHead(403, { 'content-type': 'application/xml' }).end(`<Error><Code>${code}</Code><Message>${check.reason}</Message></Error>`);
      }
      objects.set(key, { bytes: Buffer.concat(chunks), contentType: request.headers['content-type'] });
      response.writeHead(200, { etag: '"stored"' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    refusals,
    close: () => closeServer(server),
  };
}
