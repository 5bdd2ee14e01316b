/**
 * A stand-in for Kling's upstream video API (protocols.md §3.2, auth §3.3) on a real loopback socket:
 * `POST /v1/videos/{text2video|image2video}`, `GET /v1/videos/{text2video|image2video}[/{task_id}]` (the list, or one), each
 * with `Authorization: Bearer <jwt>` (HS256 over the AccessKey/SecretKey pair, checked here with node:crypto),
 * every answer Kling's envelope `{"code","message","request_id","data"}`. Tasks move only when the test says
 * (`advance`); a succeeded task's video is served at `GET /files/<task id>.mp4` without auth, like Kling's CDN
 * URL. It never imports gateway code.
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readRequestBody } from './read-request-body.js';
import { closeServer, isObject, listenOnLoopback, parseJson, sendJson } from './fake-http-helpers.js';

export type FakeKlingTaskStatus = 'submitted' | 'processing' | 'succeed' | 'failed';
export type FakeKlingAction = 'text2video' | 'image2video';

export interface FakeKlingTask {
  taskId: string;
  action: FakeKlingAction;
  status: FakeKlingTaskStatus;
  /** `task_status_msg` ("" unless the test set one; a failure without one says "task failed"). */
  statusMsg: string;
  /** The whole create body as received. */
  body: Record<string, unknown>;
  externalTaskId: string | undefined;
  /** `final_unit_deduction` once succeeded (default from mode and duration: std 5 s "1", pro 5 s "3.5", doubled for 10 s). */
  finalUnitDeduction: string;
  /** Unix ms, from `now()`. */
  createdAt: number;
  updatedAt: number;
}

export interface RecordedKlingRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON; undefined for an empty or non-JSON body. */
  body: unknown;
  /** The bearer token's payload when it decodes as JSON (whether or not it verified); undefined otherwise. */
  jwtPayload: Record<string, unknown> | undefined;
}

export interface KlingFault {
  route: 'create' | 'query';
  status: number;
  /** Default: Kling's envelope for the status (429 → 1302, 5xx → 5000, else 1200), `data: null`. */
  body?: unknown;
}

export interface FakeKlingUpstream {
  /** `http://127.0.0.1:<port>`; the API is `{url}/v1/videos/…`. */
  url: string;
  requests: RecordedKlingRequest[];
  tasks: Map<string, FakeKlingTask>;
  /** The next correctly authenticated call of that route answers this status and body instead. */
  enqueueFault(fault: KlingFault): void;
  advance(taskId: string, change: { status?: FakeKlingTaskStatus; statusMsg?: string; finalUnitDeduction?: string }): void;
  /** The `task_result.videos[0].url` a succeeded task reports: `{url}/files/<task id>.mp4`. */
  videoUrlOf(taskId: string): string;
  /** The bytes that URL serves. */
  contentOf(taskId: string): Buffer;
  close(): Promise<void>;
}

const maxPromptChars = 2500;
const aspectRatios = ['16:9', '9:16', '1:1'];
const durations = ['5', '10'];
const modes = ['std', 'pro'];
const cameraConfigKeys = ['horizontal', 'vertical', 'pan', 'tilt', 'roll', 'zoom'];
const authMessages: Record<number, string> = {
  1000: 'Authentication failed',
  1001: 'Authorization is empty',
  1002: 'Authorization is invalid',
  1003: 'Authorization is not yet valid',
  1004: 'Authorization has expired',
};

export async function startFakeKlingUpstream(options: { accessKey: string; secretKey: string; now?: () => number; videoBytes?: number }): Promise<FakeKlingUpstream> {
  const requests: RecordedKlingRequest[] = [];
  const tasks = new Map<string, FakeKlingTask>();
  const faults: KlingFault[] = [];
  const videoBytes = options.videoBytes ?? 1.5 * 1024 * 1024 + 3;
  const now = options.now ?? Date.now;
  let sequence = 0;
  let baseUrl = '';

  const videoUrlOf = (taskId: string) => `${baseUrl}/files/${taskId}.mp4`;
  const watermarkUrlOf = (taskId: string) => `${baseUrl}/files/${taskId}_watermark.mp4`;

  const contentOf = (taskId: string) => {
    const bytes = Buffer.alloc(videoBytes);
    const seed = [...taskId].reduce((sum, char) => sum + char.charCodeAt(0), 0);
    // An MP4 `ftyp` box first (isom), then bytes that are not text.
    bytes.set(Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 0x02, 0, 0x69, 0x73, 0x6f, 0x6d, 0x6d, 0x70, 0x34, 0x31]).subarray(0, videoBytes));
    for (let index = 24; index < videoBytes; index += 1) bytes[index] = (index * 167 + seed) % 256;
    return bytes;
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendEnvelope(response, 500, 5000, `fake kling upstream bug: ${String(error)}`, null);
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readRequestBody(request);
    const path = request.url ?? '/';
    const pathname = new URL(path, 'http://fake').pathname;
    const method = request.method ?? '';
    const token = bearerToken(request.headers.authorization);
    const recorded: RecordedKlingRequest = { method, path, headers: request.headers, body: parseJson(rawBody), jwtPayload: token === undefined ? undefined : decodePayload(token) };
    requests.push(recorded);

    const file = /^\/files\/([^/]+?)(_watermark)?\.mp4$/.exec(pathname);
    if ((method === 'GET' || method === 'HEAD') && file !== null) {
      const task = tasks.get(decodeURIComponent(file[1] as string));
      if (task === undefined || task.status !== 'succeed') {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('Not Found');
        return;
      }
      const bytes = contentOf(task.taskId);
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length });
      if (method === 'HEAD') {
        response.end();
        return;
      }
      // Written in 64 KiB pieces, as a CDN streams a file.
      for (let offset = 0; offset < bytes.length; offset += 65_536) {
        if (!response.write(bytes.subarray(offset, offset + 65_536))) await new Promise((resolve) => response.once('drain', resolve));
      }
      response.end();
      return;
    }

    const auth = verifyJwt(request.headers.authorization, options.accessKey, options.secretKey, Math.floor(now() / 1000));
    if (auth !== undefined) return sendEnvelope(response, 401, auth, authMessages[auth] ?? 'Authentication failed', null);

    const create = /^\/v1\/videos\/(text2video|image2video)$/.exec(pathname);
    // The task list (`?pageNum=&pageSize=`): this key's tasks of that action, newest first.
    if (method === 'GET' && create !== null) {
      const listed = [...tasks.values()].filter((task) => task.action === create[1]).reverse();
      const url = new URL(path, 'http://fake');
      const size = Number(url.searchParams.get('pageSize') ?? '30');
      return sendEnvelope(response, 200, 0, 'SUCCEED', listed.slice(0, size).map((task) => ({ task_id: task.taskId, task_status: task.status })));
    }
    const query = /^\/v1\/videos\/(text2video|image2video)\/([^/]+)$/.exec(pathname);
    const route = method === 'POST' && create !== null ? 'create' : method === 'GET' && query !== null ? 'query' : undefined;
    if (route === undefined) return sendEnvelope(response, 404, 1203, `resource not found: ${method} ${pathname}`, null);

    const faultIndex = faults.findIndex((fault) => fault.route === route);
    if (faultIndex >= 0) {
      const [fault] = faults.splice(faultIndex, 1) as [KlingFault];
      if (fault.body !== undefined) return sendJson(response, fault.status, fault.body);
      const [code, message] = fault.status === 429 ? [1302, 'API request too fast, please slow down'] : fault.status >= 500 ? [5000, 'server internal error'] : [1200, 'fake failure'];
      return sendEnvelope(response, fault.status, code, message, null);
    }

    if (route === 'create') {
      const action = (create as RegExpExecArray)[1] as FakeKlingAction;
      if (rawBody.length === 0 || recorded.body === undefined) return sendEnvelope(response, 400, 1200, 'request body is not valid JSON', null);
      const body = recorded.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return sendEnvelope(response, 400, 1201, 'request body must be a JSON object', null);
      const fields = body as Record<string, unknown>;
      const invalid = validateCreate(action, fields);
      if (invalid !== undefined) return sendEnvelope(response, 400, 1201, invalid, null);
      sequence += 1;
      const taskId = `8${String(63_214_507_000_000_000n + BigInt(sequence) * 7_919n).padStart(17, '0')}`;
      const at = now();
      const seconds = fields.duration === '10' ? 2 : 1;
      const task: FakeKlingTask = {
        taskId,
        action,
        status: 'submitted',
        statusMsg: '',
        body: structuredClone(fields),
        externalTaskId: typeof fields.external_task_id === 'string' ? fields.external_task_id : undefined,
        finalUnitDeduction: String((fields.mode === 'pro' ? 3.5 : 1) * seconds),
        createdAt: at,
        updatedAt: at,
      };
      tasks.set(taskId, task);
      return sendEnvelope(response, 200, 0, 'SUCCEED', {
        task_id: taskId,
        task_status: task.status,
        task_info: taskInfo(task),
        created_at: task.createdAt,
        updated_at: task.updatedAt,
      });
    }

    const [, action, rawId] = query as RegExpExecArray;
    const task = tasks.get(decodeURIComponent(rawId as string));
    if (task === undefined || task.action !== action) return sendEnvelope(response, 404, 1203, 'task not found', null);
    return sendEnvelope(response, 200, 0, 'SUCCEED', describe(task));
  }

  function describe(task: FakeKlingTask): Record<string, unknown> {
    const data: Record<string, unknown> = {
      task_id: task.taskId,
      task_status: task.status,
      task_status_msg: task.status === 'failed' && task.statusMsg === '' ? 'task failed' : task.statusMsg,
      task_info: taskInfo(task),
      created_at: task.createdAt,
      updated_at: task.updatedAt,
    };
    if (task.status === 'succeed') {
      const videoId = createHash('sha256').update(`kling-video:${task.taskId}`).digest('hex');
      data.task_result = {
        videos: [
          {
            id: `${videoId.slice(0, 8)}-${videoId.slice(8, 12)}-${videoId.slice(12, 16)}-${videoId.slice(16, 20)}-${videoId.slice(20, 32)}`,
            url: videoUrlOf(task.taskId),
            watermark_url: watermarkUrlOf(task.taskId),
            duration: typeof task.body.duration === 'string' ? task.body.duration : '5',
          },
        ],
      };
      data.final_unit_deduction = task.finalUnitDeduction;
    }
    return data;
  }

  baseUrl = await listenOnLoopback(server);
  return {
    url: baseUrl,
    requests,
    tasks,
    enqueueFault: (fault) => faults.push(fault),
    advance(taskId, change) {
      const task = tasks.get(taskId);
      if (task === undefined) throw new Error(`no fake kling task ${taskId}`);
      if (change.status !== undefined) task.status = change.status;
      if (change.statusMsg !== undefined) task.statusMsg = change.statusMsg;
      if (change.finalUnitDeduction !== undefined) task.finalUnitDeduction = change.finalUnitDeduction;
      task.updatedAt = now();
    },
    videoUrlOf,
    contentOf,
    close: () => closeServer(server),
  };
}

function taskInfo(task: FakeKlingTask): Record<string, unknown> {
  return task.externalTaskId === undefined ? {} : { external_task_id: task.externalTaskId };
}

function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

function base64urlJson(part: string): unknown {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return undefined;
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function decodePayload(token: string): Record<string, unknown> | undefined {
  const payload = base64urlJson(token.split('.')[1] ?? '');
  return isObject(payload) ? payload : undefined;
}

/**
 * Kling's check of the bearer JWT: undefined when it is good, else the error code (1001 empty, 1002 invalid,
 * 1003 not yet valid, 1004 expired). No clock slack: `exp` must be after `nowSeconds`, `nbf` not after it.
 */
function verifyJwt(header: string | undefined, accessKey: string, secretKey: string, nowSeconds: number): number | undefined {
  if (header === undefined || header.trim() === '' || /^Bearer\s*$/i.test(header.trim())) return 1001;
  const token = bearerToken(header);
  if (token === undefined) return 1002;
  const parts = token.split('.');
  if (parts.length !== 3) return 1002;
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const jwtHeader = base64urlJson(headerPart);
  if (!isObject(jwtHeader) || jwtHeader.alg !== 'HS256' || (jwtHeader.typ !== undefined && jwtHeader.typ !== 'JWT')) return 1002;
  if (!/^[A-Za-z0-9_-]+$/.test(signaturePart)) return 1002;
  const expected = createHmac('sha256', secretKey).update(`${headerPart}.${payloadPart}`).digest();
  const given = Buffer.from(signaturePart, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 1002;
  const payload = base64urlJson(payloadPart);
  if (!isObject(payload) || payload.iss !== accessKey) return 1002;
  if (typeof payload.exp !== 'number' || typeof payload.nbf !== 'number') return 1002;
  if (payload.nbf > nowSeconds) return 1003;
  if (payload.exp <= nowSeconds) return 1004;
  return undefined;
}

/** An image field: an http(s) URL, or raw Base64 (a `data:` URI is refused, as Kling refuses it). */
function checkImage(name: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return `${name} must be a non-empty string`;
  if (value.startsWith('data:')) return `${name}: Base64 must not carry a data: prefix`;
  if (/^https?:\/\/\S+$/.test(value)) return undefined;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return `${name} is neither a URL nor valid Base64`;
  return undefined;
}

function checkString(name: string, value: unknown, maxChars?: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return `${name} must be a string`;
  if (maxChars !== undefined && [...value].length > maxChars) return `${name} must be at most ${maxChars} characters`;
  return undefined;
}

function validateCreate(action: FakeKlingAction, fields: Record<string, unknown>): string | undefined {
  if (fields.model_name !== undefined && (typeof fields.model_name !== 'string' || fields.model_name === '')) return 'model_name must be a non-empty string';
  if (action === 'text2video') {
    if (typeof fields.prompt !== 'string' || fields.prompt === '') return 'prompt is required';
  }
  const stringProblem =
    checkString('prompt', fields.prompt, maxPromptChars) ??
    checkString('negative_prompt', fields.negative_prompt, maxPromptChars) ??
    checkString('callback_url', fields.callback_url) ??
    checkString('external_task_id', fields.external_task_id);
  if (stringProblem !== undefined) return stringProblem;
  if (fields.cfg_scale !== undefined && (typeof fields.cfg_scale !== 'number' || !(fields.cfg_scale >= 0 && fields.cfg_scale <= 1))) return 'cfg_scale must be a number from 0 to 1';
  if (fields.mode !== undefined && !modes.includes(fields.mode as string)) return 'mode must be one of std, pro';
  if (fields.duration !== undefined && (typeof fields.duration !== 'string' || !durations.includes(fields.duration))) return 'duration must be the string "5" or "10"';
  // image2video has no aspect_ratio; one sent anyway is ignored (new-api sends its default), not refused.
  if (action === 'text2video' && fields.aspect_ratio !== undefined && !aspectRatios.includes(fields.aspect_ratio as string)) return 'aspect_ratio must be one of 16:9, 9:16, 1:1';
  const camera = checkCameraControl(fields.camera_control);
  if (camera !== undefined) return camera;
  if (action === 'image2video') {
    const image = checkImage('image', fields.image);
    if (image !== undefined) return image;
    for (const name of ['image_tail', 'static_mask'] as const) {
      if (fields[name] !== undefined) {
        const problem = checkImage(name, fields[name]);
        if (problem !== undefined) return problem;
      }
    }
    if (fields.dynamic_masks !== undefined) {
      if (!Array.isArray(fields.dynamic_masks)) return 'dynamic_masks must be an array';
      for (const entry of fields.dynamic_masks as unknown[]) {
        if (!isObject(entry)) return 'dynamic_masks entries must be objects';
        const mask = checkImage('dynamic_masks.mask', entry.mask);
        if (mask !== undefined) return mask;
        if (!Array.isArray(entry.trajectories) || !(entry.trajectories as unknown[]).every((point) => isObject(point) && typeof point.x === 'number' && typeof point.y === 'number')) {
          return 'dynamic_masks.trajectories must be an array of {x, y}';
        }
      }
    }
  }
  return undefined;
}

function checkCameraControl(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value) || typeof value.type !== 'string' || value.type === '') return 'camera_control.type is required';
  if (value.type !== 'simple') return undefined;
  if (!isObject(value.config)) return 'camera_control.config is required for type simple';
  const config = value.config;
  let nonZero = 0;
  for (const key of cameraConfigKeys) {
    const entry = config[key];
    if (entry === undefined) continue;
    if (typeof entry !== 'number' || entry < -10 || entry > 10) return `camera_control.config.${key} must be a number from -10 to 10`;
    if (entry !== 0) nonZero += 1;
  }
  if (nonZero !== 1) return 'camera_control.config must have exactly one non-zero value';
  return undefined;
}

function sendEnvelope(response: ServerResponse, status: number, code: number, message: string, data: unknown): void {
  sendJson(response, status, { code, message, request_id: randomUUID(), data });
}
