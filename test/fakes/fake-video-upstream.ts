/**
 * A stand-in for OpenAI's Videos API (protocols.md §4; the `openai` SDK's `Video` type) on a real loopback
 * socket: `POST /v1/videos` (multipart form as the SDK sends it, or JSON as resellers take it), `GET
 * /v1/videos/{id}`, `GET /v1/videos/{id}/content`, `POST /v1/videos/{id}/remix` (a completed video only). Each video belongs to the key that created it (another
 * key gets OpenAI's 404), and moves only when the test says (`advance`). It never imports gateway code.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRequestBody } from './read-request-body.js';
import { closeServer } from './fake-http-helpers.js';

export type FakeVideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface FakeVideo {
  id: string;
  object: 'video';
  model: string;
  status: FakeVideoStatus;
  progress: number;
  created_at: number;
  completed_at: number | null;
  expires_at: number | null;
  error: { code: string; message: string } | null;
  prompt: string;
  remixed_from_video_id: string | null;
  seconds: string;
  size: string;
}

export interface RecordedVideoRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The submit's fields (form text parts, or the JSON body); undefined for GETs. */
  fields?: Record<string, unknown>;
  /** Form file parts: name → bytes. */
  files?: Record<string, Buffer>;
  contentType?: string;
}

/** One queued answer for the next submit instead of a created video. */
export type VideoSubmitFault = { kind: 'status'; status: number; body?: unknown } | { kind: 'reset' } | { kind: 'answer'; body: unknown; status?: number };

export interface FakeVideoUpstream {
  url: string;
  requests: RecordedVideoRequest[];
  videos: Map<string, FakeVideo>;
  /** The next submit fails (or answers `body`) instead of creating a video. */
  enqueueSubmitFault(fault: VideoSubmitFault): void;
  /** The next poll of video `id` answers this status (500, 429) instead of the video. */
  enqueuePollFault(id: string, status: number): void;
  advance(id: string, change: Partial<Pick<FakeVideo, 'status' | 'progress' | 'error' | 'expires_at'>>): void;
  /** The bytes `GET …/content` serves for a video (and `?variant=thumbnail` the first 1 KiB of). */
  contentOf(id: string): Buffer;
  close(): Promise<void>;
}

const sizes = ['720x1280', '1280x720', '1024x1792', '1792x1024'];
const secondsAllowed = ['4', '8', '12'];

export async function startFakeVideoUpstream(options: { expectedKeys: string[]; contentBytes?: number }): Promise<FakeVideoUpstream> {
  const requests: RecordedVideoRequest[] = [];
  const videos = new Map<string, FakeVideo>();
  const owners = new Map<string, string>();
  const submitFaults: VideoSubmitFault[] = [];
  const pollFaults = new Map<string, number[]>();
  const contentBytes = options.contentBytes ?? 3 * 1024 * 1024 + 17;
  let sequence = 0;

  const contentOf = (id: string) => {
    const bytes = Buffer.alloc(contentBytes);
    const seed = [...id].reduce((sum, char) => sum + char.charCodeAt(0), 0);
    // An MP4 `ftyp` box first, then bytes that are not text.
    bytes.set(Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32]));
    for (let index = 12; index < contentBytes; index += 1) bytes[index] = (index * 31 + seed) % 256;
    return bytes;
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => sendJson(response, 500, { error: { message: `fake video upstream bug: ${String(error)}`, type: 'server_error' } }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readRequestBody(request);
    const url = new URL(request.url ?? '/', 'http://fake');
    const recorded: RecordedVideoRequest = { method: request.method ?? '', path: request.url ?? '', headers: request.headers };
    requests.push(recorded);
    const key = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (key === undefined || !options.expectedKeys.includes(key)) {
      sendJson(response, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
      return;
    }

    if (request.method === 'POST' && url.pathname === '/v1/videos') {
      const contentType = String(request.headers['content-type'] ?? '');
      recorded.contentType = contentType;
      const { fields, files } = await readSubmit(body, contentType);
      recorded.fields = fields;
      recorded.files = files;
      const fault = submitFaults.shift();
      if (fault?.kind === 'reset') {
        request.socket.destroy();
        return;
      }
      if (fault?.kind === 'status') {
        sendJson(response, fault.status, fault.body ?? { error: { message: `Fake failure ${fault.status}.`, type: fault.status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } });
        return;
      }
      if (fault?.kind === 'answer') {
        sendJson(response, fault.status ?? 200, fault.body);
        return;
      }
      const invalid = validateSubmit(fields);
      if (invalid !== undefined) {
        sendJson(response, 400, { error: { message: invalid.message, type: 'invalid_request_error', param: invalid.param, code: invalid.code } });
        return;
      }
      sequence += 1;
      const id = `video_${sequence.toString(16).padStart(8, '0')}${'c0ffee'.repeat(7)}`;
      const video: FakeVideo = {
        id,
        object: 'video',
        model: String(fields.model ?? 'sora-2'),
        status: 'queued',
        progress: 0,
        created_at: Math.floor(Date.now() / 1000),
        completed_at: null,
        expires_at: null,
        error: null,
        prompt: String(fields.prompt),
        remixed_from_video_id: null,
        seconds: String(fields.seconds ?? '4'),
        size: String(fields.size ?? '720x1280'),
      };
      videos.set(id, video);
      owners.set(id, key);
      sendJson(response, 200, video);
      return;
    }

    const remix = /^\/v1\/videos\/([^/]+)\/remix$/.exec(url.pathname);
    if (request.method === 'POST' && remix !== null) {
      const originId = decodeURIComponent(remix[1] as string);
      const origin = videos.get(originId);
      recorded.fields = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      if (origin === undefined || owners.get(originId) !== key) {
        sendJson(response, 404, { error: { message: `Video with id '${originId}' not found.`, type: 'invalid_request_error', param: null, code: null } });
        return;
      }
      if (origin.status !== 'completed' || typeof recorded.fields.prompt !== 'string') {
        sendJson(response, 400, { error: { message: 'Only a completed video can be remixed, with a prompt.', type: 'invalid_request_error', param: null, code: null } });
        return;
      }
      sequence += 1;
      const id = `video_${sequence.toString(16).padStart(8, '0')}${'c0ffee'.repeat(7)}`;
      const video: FakeVideo = { ...origin, id, status: 'queued', progress: 0, created_at: Math.floor(Date.now() / 1000), completed_at: null, expires_at: null, error: null, prompt: recorded.fields.prompt, remixed_from_video_id: originId };
      videos.set(id, video);
      owners.set(id, key);
      sendJson(response, 200, video);
      return;
    }

    const match = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(url.pathname);
    if (request.method === 'GET' && match !== null) {
      const id = decodeURIComponent(match[1] as string);
      const video = videos.get(id);
      if (video === undefined || owners.get(id) !== key) {
        sendJson(response, 404, { error: { message: `Video with id '${id}' not found.`, type: 'invalid_request_error', param: null, code: null } });
        return;
      }
      if (match[2] === undefined) {
        const fault = pollFaults.get(id)?.shift();
        if (fault !== undefined) {
          sendJson(response, fault, { error: { message: `Fake failure ${fault}.`, type: 'server_error', param: null, code: null } });
          return;
        }
        sendJson(response, 200, video);
        return;
      }
      if (video.status !== 'completed') {
        sendJson(response, 400, { error: { message: 'Video is not ready yet.', type: 'invalid_request_error', param: null, code: null } });
        return;
      }
      const variant = url.searchParams.get('variant') ?? 'video';
      const bytes = variant === 'video' ? contentOf(id) : contentOf(id).subarray(0, 1024);
      response.writeHead(200, { 'content-type': variant === 'video' ? 'video/mp4' : 'image/webp', 'content-length': bytes.length });
      // Written in 64 KiB pieces, as a CDN streams a file.
      for (let offset = 0; offset < bytes.length; offset += 65_536) {
        if (!response.write(bytes.subarray(offset, offset + 65_536))) await new Promise((resolve) => response.once('drain', resolve));
      }
      response.end();
      return;
    }
    sendJson(response, 404, { error: { message: `Invalid URL (${request.method} ${url.pathname})`, type: 'invalid_request_error', param: null, code: null } });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    videos,
    enqueueSubmitFault: (fault) => submitFaults.push(fault),
    enqueuePollFault: (id, status) => pollFaults.set(id, [...(pollFaults.get(id) ?? []), status]),
    advance(id, change) {
      const video = videos.get(id);
      if (video === undefined) throw new Error(`no fake video ${id}`);
      Object.assign(video, change);
      if (change.status === 'completed' || change.status === 'failed') video.completed_at = Math.floor(Date.now() / 1000);
      if (change.status === 'completed') video.progress = 100;
    },
    contentOf,
    close: () => closeServer(server),
  };
}

function validateSubmit(fields: Record<string, unknown>): { message: string; param: string; code: string } | undefined {
  if (typeof fields.prompt !== 'string' || fields.prompt === '') return { message: "Missing required parameter: 'prompt'.", param: 'prompt', code: 'missing_required_parameter' };
  if (fields.seconds !== undefined && !secondsAllowed.includes(String(fields.seconds))) {
    return { message: `Invalid value: '${String(fields.seconds)}'. Supported values are: '4', '8', and '12'.`, param: 'seconds', code: 'invalid_value' };
  }
  if (fields.size !== undefined && !sizes.includes(String(fields.size))) return { message: `Invalid value: '${String(fields.size)}'.`, param: 'size', code: 'invalid_value' };
  return undefined;
}

async function readSubmit(body: Buffer, contentType: string): Promise<{ fields: Record<string, unknown>; files: Record<string, Buffer> }> {
  const fields: Record<string, unknown> = {};
  const files: Record<string, Buffer> = {};
  if (contentType.startsWith('multipart/form-data')) {
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') fields[name] = value;
      else files[name] = Buffer.from(await value.arrayBuffer());
    }
    return { fields, files };
  }
  const json: unknown = JSON.parse(body.toString('utf8'));
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) Object.assign(fields, json);
  return { fields, files };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'openai-processing-ms': '42' });
  response.end(text);
}
