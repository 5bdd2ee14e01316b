/**
 * From the assets audit: the Seedance asset routes' edges — channel keys never reach the client, bodies and
 * ids refused before any upstream call, pins, a channel disabled at run time, which answers fail over, an
 * answer too large to be an asset record, CORS and request ids.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeServer, listenOnLoopback } from '../fakes/fake-http-helpers.js';
import { readRequestBody } from '../fakes/read-request-body.js';
import { startTestGateway, testAdminKey, type TestGateway } from '../support/start-test-gateway.js';

const aliceKey = `sk-${'a'.repeat(48)}`;
const rootKey = `sk-${'r'.repeat(48)}`;
const seedance = 'doubao-seedance-2-0-260128';
const firstKey = 'ark-first-secret-key-0001';
const secondKey = 'ark-second-secret-key-0002';
const base = { type: 'openai' as const, weight: 1, auto_disable: false, enabled: true, model_mapping: {} };

type Script = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void | Promise<void>;
interface Scripted {
  url: string;
  seen: { method: string; path: string; authorization: string | undefined; body: string }[];
  next: Script[];
  close(): Promise<void>;
}

const okCreate: Script = (_request, response) => json(response, 200, { ResponseMetadata: { Action: 'CreateAsset' }, Result: { Id: `asset-20260327164915-${Math.random().toString(36).slice(2, 7)}` } });
const okGet: Script = (request, response) => {
  const id = new URL(request.url ?? '/', 'http://x').searchParams.get('id');
  json(response, 200, { ResponseMetadata: { Action: 'GetAsset' }, Result: { Id: id, Status: 'Active' } });
};

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function startScripted(): Promise<Scripted> {
  const seen: Scripted['seen'] = [];
  const next: Script[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const body = await readRequestBody(request);
      seen.push({ method: request.method ?? '', path: request.url ?? '', authorization: request.headers.authorization, body: body.toString('utf8') });
      const script = next.shift() ?? (request.method === 'POST' ? okCreate : okGet);
      await script(request, response, body);
    })();
  });
  return { url: await listenOnLoopback(server), seen, next, close: () => closeServer(server) };
}

let first: Scripted;
let second: Scripted;
let gateway: TestGateway;
let firstChannelId: number;
let plainChannelId: number;
const client = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
const createBody = { url: 'https://example.com/cat.jpg', name: 'cat.jpg', assetType: 'Image' };

async function call(method: string, path: string, init: { body?: string | Buffer; headers?: Record<string, string>; key?: string } = {}) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${init.key ?? aliceKey}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, json: parsed };
}

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${testAdminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  first = await startScripted();
  second = await startScripted();
  gateway = await startTestGateway({
    config: {
      groups: { default: 1 },
      prices: { [seedance]: { per_second: 0.1 }, 'gpt-4o-mini': { input: 1, output: 1 } },
      channels: [
        { ...base, name: 'ark-first', base_url: first.url, key: firstKey, models: [seedance], groups: ['default'], priority: 10, settings: {} },
        { ...base, name: 'ark-second', base_url: second.url, key: secondKey, models: [seedance], groups: ['default'], priority: 0, settings: {} },
        { ...base, name: 'plain', base_url: second.url, key: secondKey, models: ['gpt-4o-mini'], groups: ['default'], priority: 0, settings: {} },
      ],
      users: [
        { username: 'alice', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
        { username: 'rooty', role: 'root', group: 'default', quota: 1_000_000, enabled: true },
      ],
      tokens: [
        { name: 'alice-key', user: 'alice', key: aliceKey, quota: 1_000_000, expires_at: 0, enabled: true },
        { name: 'root-key', user: 'rooty', key: rootKey, quota: 1_000_000, expires_at: 0, enabled: true },
      ],
    } as never,
  });
  const channels = (await admin('GET', '/channels?page_size=100')).body.data.items as { id: number; name: string }[];
  firstChannelId = channels.find((channel) => channel.name === 'ark-first')!.id;
  plainChannelId = channels.find((channel) => channel.name === 'plain')!.id;
});
afterAll(async () => {
  await gateway?.close();
  await first?.close();
  await second?.close();
});
beforeEach(() => {
  first.seen.length = 0;
  second.seen.length = 0;
  first.next.length = 0;
  second.next.length = 0;
});

describe('asset routes: channel keys never reach the client', () => {
  it('a relayed 400 that quotes the channel key is masked', async () => {
    first.next.push((_request, response) => json(response, 400, { ResponseMetadata: { Error: { Code: 'InvalidParameter', Message: `key ${firstKey} may not use this url` } } }));
    const answer = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
    expect(answer.status).toBe(400);
    expect(answer.text).not.toContain(firstKey);
  });

  it('a 401 that quotes the channel key on every channel is a 502 without either key', async () => {
    first.next.push((_request, response) => json(response, 401, { ResponseMetadata: { Error: { Code: 'AuthenticationError', Message: `The API key ${firstKey} is invalid` } } }));
    second.next.push((_request, response) => json(response, 401, { ResponseMetadata: { Error: { Code: 'AuthenticationError', Message: `The API key ${secondKey} is invalid` } } }));
    const answer = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
    expect(answer.status).toBe(502);
    expect(answer.text).not.toContain(firstKey);
    expect(answer.text).not.toContain(secondKey);
    expect(answer.json.error).toMatchObject({ type: expect.any(String), message: expect.any(String) });
  });

  it('a connection failure names no upstream host or port', async () => {
    const dead = await startScripted();
    const deadUrl = dead.url;
    await dead.close();
    const created = await admin('POST', '/channels', { ...base, name: 'dead-ark', base_url: deadUrl, key: 'dead-key-0000000000', models: [seedance], groups: ['default'], priority: -10, settings: {} });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const answer = await call('POST', `/api/asset/createMedia`, { body: JSON.stringify(createBody), key: `${rootKey}-${created.body.data.id}` });
    await admin('DELETE', `/channels/${created.body.data.id}`);
    expect(answer.status).toBe(502);
    expect(answer.text).not.toContain(new URL(deadUrl).port);
  });
});

describe('asset routes: bodies', () => {
  it('a body that is not JSON is a 400 in the OpenAI envelope', async () => {
    const answer = await call('POST', '/api/asset/createMedia', { body: 'url=https://x&name=a&assetType=Image', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ type: 'invalid_request_error' });
    expect(first.seen).toHaveLength(0);
  });

  it('a multipart body is a 415, not sent on', async () => {
    const form = new FormData();
    form.set('url', 'https://x/a.jpg');
    form.set('name', 'a');
    form.set('assetType', 'Image');
    const response = await fetch(`${gateway.url}/api/asset/createMedia`, { method: 'POST', headers: { authorization: `Bearer ${aliceKey}` }, body: form });
    expect(response.status).toBe(415);
    expect(first.seen).toHaveLength(0);
  });

  it('a body over the size limit is a 413 in the OpenAI envelope, not sent on', async () => {
    const big = JSON.stringify({ ...createBody, name: 'x'.repeat(70 * 1024 * 1024) });
    const answer = await call('POST', '/api/asset/createMedia', { body: big });
    expect(answer.status).toBe(413);
    expect(answer.json?.error).toBeDefined();
    expect(first.seen).toHaveLength(0);
  });

  it('a JSON array or null body is a 400', async () => {
    for (const body of ['[]', 'null', '"x"']) {
      const answer = await call('POST', '/api/asset/createMedia', { body });
      expect(answer.status).toBe(400);
    }
    expect(first.seen).toHaveLength(0);
  });
});

describe('asset routes: ids', () => {
  it('odd ids are refused before any upstream call; a good id reaches the upstream encoded', async () => {
    const bad = ['asset 1', 'asset\n1', 'asset%0d%0aX', '../x', 'a/b', 'a?b', 'a#b', 'a&id=b', 'ä', 'x'.repeat(200), '-lead'];
    for (const id of bad) {
      const answer = await call('GET', `/api/asset/get?id=${encodeURIComponent(id)}`);
      expect({ id, status: answer.status, param: answer.json?.error?.param }).toEqual({ id, status: 400, param: 'id' });
    }
    const twice = await call('GET', '/api/asset/get?id=asset-1&id=asset-2');
    expect(twice.status).toBe(400);
    expect(first.seen.length + second.seen.length).toBe(0);
    // A well-formed id the gateway did not create: 404, still without an upstream call.
    const unknown = await call('GET', '/api/asset/get?id=asset-20260327164915-ab.c:d_e');
    expect({ status: unknown.status, param: unknown.json?.error?.param }).toEqual({ status: 404, param: 'id' });
    expect(first.seen.length + second.seen.length).toBe(0);
  });
});

describe('asset routes: pins and runtime disable', () => {
  it('an admin key pinned to an asset channel uses that channel; pinned to a non-asset channel is a 503', async () => {
    const pinned = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody), key: `${rootKey}-${firstChannelId}` });
    expect(pinned.status).toBe(200);
    const wrong = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody), key: `${rootKey}-${plainChannelId}` });
    expect(wrong.status).toBe(503);
    expect(wrong.json.error).toBeDefined();
  });

  it('a user key may not pin (403)', async () => {
    const answer = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody), key: `${aliceKey}-${firstChannelId}` });
    expect(answer.status).toBe(403);
    expect(first.seen).toHaveLength(0);
  });

  it('a channel disabled at run time is not asked; its assets are then unreachable (503), and readable again once enabled', async () => {
    const created = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
    const id = created.json.Result.Id as string;
    expect((await admin('PUT', `/channels/${firstChannelId}`, { enabled: false })).status).toBe(200);
    try {
      first.seen.length = 0;
      second.seen.length = 0;
      const another = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
      expect(another.status).toBe(200);
      expect(first.seen).toHaveLength(0);
      expect(second.seen).toHaveLength(1);
      const read = await call('GET', `/api/asset/get?id=${id}`);
      expect(read.status).toBe(503);
      expect(first.seen).toHaveLength(0);
      expect(second.seen.filter((request) => request.method === 'GET')).toHaveLength(0);
    } finally {
      await admin('PUT', `/channels/${firstChannelId}`, { enabled: true });
    }
    expect((await call('GET', `/api/asset/get?id=${id}`)).status).toBe(200);
  });
});

describe('asset routes: failover', () => {
  for (const status of [429, 500, 502, 503, 401, 403]) {
    it(`a ${status} on create moves to the next channel`, async () => {
      first.next.push((_request, response) => json(response, status, { ResponseMetadata: { Error: { Code: 'X', Message: 'x' } } }));
      const answer = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
      expect(answer.status).toBe(200);
      expect(second.seen).toHaveLength(1);
      expect(second.seen[0]?.authorization).toBe(`Bearer ${secondKey}`);
    });
  }
  for (const status of [400, 404, 409, 422]) {
    it(`a ${status} on create is relayed as it came, no other channel asked`, async () => {
      const body = { ResponseMetadata: { Error: { Code: 'X', Message: `m${status}` } } };
      first.next.push((_request, response) => json(response, status, body));
      const answer = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
      expect(answer.status).toBe(status);
      expect(answer.json).toEqual(body);
      expect(second.seen).toHaveLength(0);
    });
  }
  it('a 200 that is not JSON is a 502 in the OpenAI envelope', async () => {
    first.next.push((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>gateway</html>');
    });
    const answer = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
    expect(answer.status).toBe(502);
    expect(answer.json.error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
  });
  it('an upstream answer far larger than an asset record is not read whole: the next channel answers', async () => {
    first.next.push((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 80) {
          sent += 1;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end('{}');
      };
      response.write('{"Result":{"Id":"asset-20260327164915-huge1","pad":"');
      pump();
    });
    const answer = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
    // Not held whole (the read stops at 256 KiB): the next channel is asked, and its answer relayed.
    expect(answer.status).toBe(200);
    expect(second.seen.map((request) => request.path)).toEqual(['/api/asset/createMedia']);
    expect(answer.json.Result.Id).not.toBe('asset-20260327164915-huge1');
  });
});

describe('asset routes: CORS, request id, rate limits', () => {
  it('preflight for both routes answers 204 with the CORS headers', async () => {
    for (const path of ['/api/asset/createMedia', '/api/asset/get?id=x']) {
      const response = await fetch(`${gateway.url}${path}`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
  });
  it('answers and errors carry CORS and x-request-id', async () => {
    const ok = await call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
    const error = await call('GET', '/api/asset/get');
    const relayedError = await (async () => {
      first.next.push((_request, response) => json(response, 400, { ResponseMetadata: { Error: { Code: 'X', Message: 'x' } } }));
      return call('POST', '/api/asset/createMedia', { body: JSON.stringify(createBody) });
    })();
    for (const answer of [ok, error, relayedError]) {
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('x-request-id')).toBeTruthy();
    }
  });
  it('the SDK reads the answer as Ark sent it', async () => {
    const answer = await client(aliceKey).post<{ Result: { Id: string } }>('/api/asset/createMedia', { body: createBody });
    expect(answer.Result.Id).toMatch(/^asset-/);
  });
});
