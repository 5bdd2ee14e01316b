/**
 * A stand-in for the Seedance 2 asset API of Volcengine Ark as resellers expose it on a real loopback socket:
 * `POST /api/asset/createMedia` `{url, name, assetType}` → `{ResponseMetadata, Result: {Id}}`, and
 * `GET /api/asset/get?id=` → `{ResponseMetadata, Result: {Id, Name, URL, AssetType, GroupId, Status,
 * CreateTime, UpdateTime, ProjectName}}`. An unknown id (or another key's asset) answers 404 with Ark's
 * `ResponseMetadata.Error`. A new asset is `Processing` until the test calls `activate`. It never imports
 * gateway code.
 */
import { createServer, type ServerResponse } from 'node:http';
import { closeServer, isObject, listenOnLoopback, parseJson, sendJson } from './fake-http-helpers.js';
import { readRequestBody } from './read-request-body.js';

export interface FakeAsset {
  Id: string;
  Name: string;
  URL: string;
  AssetType: string;
  GroupId: string;
  Status: 'Processing' | 'Active';
  CreateTime: string;
  UpdateTime: string;
  ProjectName: string;
}

export interface RecordedAssetRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  rawBody: Buffer;
}

export interface FakeArkAssetUpstream {
  url: string;
  requests: RecordedAssetRequest[];
  assets: Map<string, FakeAsset>;
  /** The next request answers this status (and Ark's error body, with `message` when given) instead. */
  enqueueFault(status: number, message?: string): void;
  /** The next createMedia answers `{}` (as some resellers do) though the asset is created. */
  answerNextCreateEmpty(): void;
  /** The next createMedia makes its asset under this id (Ark's ids are its own; a test may need two alike). */
  nameNextAsset(id: string): void;
  activate(id: string): void;
  close(): Promise<void>;
}

export async function startFakeArkAssetUpstream(options: { expectedKeys: string[]; idPrefix?: string }): Promise<FakeArkAssetUpstream> {
  const requests: RecordedAssetRequest[] = [];
  const assets = new Map<string, FakeAsset>();
  const owners = new Map<string, string>();
  const faults: { status: number; message: string | undefined }[] = [];
  let emptyNext = false;
  let nextName: string | undefined;
  let sequence = 0;

  const metadata = (action: string, error?: { Code: string; Message: string }) => ({
    RequestId: `20260327164951${String(requests.length).padStart(6, '0')}`,
    Action: action,
    Version: '2024-01-01',
    Service: 'ark',
    Region: 'cn-beijing',
    ...(error === undefined ? {} : { Error: error }),
  });
  const fail = (response: ServerResponse, status: number, action: string, code: string, message: string) => sendJson(response, status, { ResponseMetadata: metadata(action, { Code: code, Message: message }) });

  const server = createServer((request, response) => {
    void (async () => {
      const rawBody = await readRequestBody(request);
      const path = request.url ?? '/';
      requests.push({ method: request.method ?? 'GET', path, authorization: request.headers.authorization, rawBody });
      const key = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      const url = new URL(path, 'http://fake');
      const action = url.pathname === '/api/asset/createMedia' ? 'CreateAsset' : 'GetAsset';
      const fault = faults.shift();
      if (fault !== undefined) return fail(response, fault.status, action, fault.status === 429 ? 'RequestLimitExceeded' : 'InternalError', fault.message ?? `fault ${fault.status}`);
      if (!options.expectedKeys.includes(key)) return fail(response, 401, action, 'AuthenticationError', 'the API key is invalid');
      if (request.method === 'POST' && url.pathname === '/api/asset/createMedia') {
        const body = parseJson(rawBody);
        if (!isObject(body) || typeof body.url !== 'string' || typeof body.name !== 'string' || typeof body.assetType !== 'string') {
          return fail(response, 400, action, 'InvalidParameter', 'url, name and assetType are required');
        }
        sequence += 1;
        const id = nextName ?? `${options.idPrefix ?? 'asset-20260327164915-'}${String(sequence).padStart(5, 'a')}`;
        nextName = undefined;
        const now = new Date(Date.UTC(2026, 2, 27, 8, 49, 15 + sequence)).toISOString().replace('.000', '');
        assets.set(id, { Id: id, Name: body.name, URL: `https://ark-media-asset.example.com/${id}.bin?X-Tos-Signature=abc`, AssetType: body.assetType, GroupId: 'group-20260323170848-fwlzh', Status: 'Processing', CreateTime: now, UpdateTime: now, ProjectName: 'default' });
        owners.set(id, key);
        if (emptyNext) {
          emptyNext = false;
          return sendJson(response, 200, {});
        }
        return sendJson(response, 200, { ResponseMetadata: metadata(action), Result: { Id: id } });
      }
      if (request.method === 'GET' && url.pathname === '/api/asset/get') {
        const id = url.searchParams.get('id') ?? '';
        const asset = assets.get(id);
        if (asset === undefined || owners.get(id) !== key) return fail(response, 404, action, 'NotFound', `The specified asset ${id} is not found.`);
        return sendJson(response, 200, { ResponseMetadata: metadata(action), Result: asset });
      }
      return fail(response, 404, action, 'NotFound', `no route ${request.method} ${url.pathname}`);
    })().catch((error: unknown) => sendJson(response, 500, { ResponseMetadata: { Error: { Code: 'FakeBug', Message: String(error) } } }));
  });

  return {
    url: await listenOnLoopback(server),
    requests,
    assets,
    enqueueFault: (status, message) => faults.push({ status, message }),
    answerNextCreateEmpty: () => {
      emptyNext = true;
    },
    nameNextAsset: (id) => {
      nextName = id;
    },
    activate: (id) => {
      const asset = assets.get(id);
      if (asset !== undefined) asset.Status = 'Active';
    },
    close: () => closeServer(server),
  };
}
