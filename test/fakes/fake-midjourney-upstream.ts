/**
 * A stand-in for a Midjourney-proxy server (novicezk midjourney-proxy, "plus" flavour) as new-api's MJ relay
 * calls it (protocols.md §1), on a real loopback socket: the `/mj/submit/*` routes and `/mj/insight-face/swap`,
 * `POST /mj/task/list-by-condition` (bare JSON array), `GET /mj/task/{id}/fetch`, `GET /mj/task/{id}/image-seed`,
 * and `GET /images/<id>.png` (no auth, like a CDN link). Auth is the `mj-api-secret` header; a missing or wrong
 * secret is HTTP 401 with no body. Submits answer HTTP 200 `{code, description, result, properties}` (1 submitted,
 * 21 modal required, 22 queued; errors 3 not found, 4 validation, and 9/23/24 when queued as faults).
 * Each task belongs to the key that submitted it and moves only when the test says (`advance`). It never
 * imports gateway code.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { deflateSync } from 'node:zlib';
import { readRequestBody } from './read-request-body.js';
import { closeServer, isObject, listenOnLoopback, parseJson, sendJson } from './fake-http-helpers.js';

export type FakeMjStatus = 'NOT_START' | 'SUBMITTED' | 'MODAL' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE' | 'CANCEL';

export interface FakeMjTask {
  /** Numeric string, numbered per server from `1700000000000001`. */
  id: string;
  /** IMAGINE, UPSCALE, VARIATION, REROLL, DESCRIBE, BLEND, SHORTEN, SWAP_FACE, INPAINT, CUSTOM_ZOOM, ZOOM, PAN, HIGH_VARIATION, LOW_VARIATION, MODAL, VIDEO, EDITS */
  action: string;
  status: FakeMjStatus;
  /** `'0%'`…`'100%'`. */
  progress: string;
  prompt: string;
  promptEn: string;
  /** `/imagine <prompt>`, `/up <taskId> U2`, … */
  description: string;
  state: string;
  /** Milliseconds; 0 until set. */
  submitTime: number;
  startTime: number;
  finishTime: number;
  /** `''` until SUCCESS; then `${url}/images/${id}.png`. */
  imageUrl: string;
  failReason: string;
  /** Set at SUCCESS for IMAGINE/VARIATION/REROLL/BLEND: U1..U4, the reroll button, V1..V4. */
  buttons: Array<{ customId: string; emoji: string; label: string; type: number; style: number }>;
  /** `{finalPrompt, discordInstanceId, messageId, messageHash, notifyHook?}`. */
  properties: Record<string, unknown>;
  /** The mj-api-secret that submitted it; only that key can see it. */
  key: string;
  /** The submit body as received. */
  body: Record<string, unknown>;
}

export interface RecordedMjRequest {
  method: string;
  /** With the query string, as received. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  body: unknown;
}

/** The next submit (any /mj/submit/* or /mj/insight-face/swap) answers with this instead of creating normally. */
export type MjSubmitFault =
  | { kind: 'http'; status: number; body?: unknown }
  | { kind: 'code'; code: 3 | 4 | 9 | 23 | 24; description?: string; properties?: Record<string, unknown> };

export interface MjTaskChange {
  status?: FakeMjStatus;
  progress?: string;
  failReason?: string;
}

export interface FakeMidjourneyUpstream {
  url: string;
  requests: RecordedMjRequest[];
  tasks: Map<string, FakeMjTask>;
  enqueueSubmitFault(fault: MjSubmitFault): void;
  /** The next list-by-condition call answers `status` (e.g. 500) with an empty body. */
  enqueueFetchFault(status: number): void;
  /** Moves a task. IN_PROGRESS sets startTime; SUCCESS/FAILURE/CANCEL set finishTime; SUCCESS sets progress '100%', imageUrl and buttons. */
  advance(taskId: string, change: MjTaskChange): void;
  /** The next submit of this action answers code 21 (existing task / modal required) instead of 1: `{code: 21, description: 'Waiting for window confirm', result: <new task id>, properties: {finalPrompt, remix: true}}` — the new task is created in status MODAL. */
  answerNextWithModal(): void;
  /** The next submit answers code 22 (queued) with properties {numberOfQueues: 2, discordInstanceId: 'instance-secret-1'} — task created normally in SUBMITTED. */
  answerNextQueued(): void;
  /**
   * From now on list-by-condition lists this task twice, as a proxy keeping a task's old record beside the
   * live one does: the task as it is now (a copy that no longer moves), then the live task.
   */
  listTwice(taskId: string): void;
  /** The PNG bytes GET /images/<id>.png serves (deterministic per id, a few KB). */
  imageOf(taskId: string): Buffer;
  close(): Promise<void>;
}

const instanceId = 'instance-secret-1';
const channelId = 'chan-secret';
const firstTaskId = 1_700_000_000_000_001;
/** Actions whose SUCCESS is a four-image grid with U/V/reroll buttons. */
const gridActions: readonly string[] = ['IMAGINE', 'VARIATION', 'REROLL', 'BLEND'];
const submitRoutes: readonly string[] = [
  '/mj/submit/imagine',
  '/mj/submit/change',
  '/mj/submit/simple-change',
  '/mj/submit/action',
  '/mj/submit/modal',
  '/mj/submit/shorten',
  '/mj/submit/describe',
  '/mj/submit/blend',
  '/mj/submit/edits',
  '/mj/submit/video',
  '/mj/submit/upload-discord-images',
  '/mj/insight-face/swap',
];
const changeActions: readonly string[] = ['UPSCALE', 'VARIATION', 'REROLL'];
const blendDimensions: readonly string[] = ['PORTRAIT', 'SQUARE', 'LANDSCAPE'];
const defaultFaultDescriptions: Record<number, string> = {
  3: 'no available account instance',
  4: 'validation error',
  9: 'system error',
  23: 'queue full, please try again later',
  24: 'banned prompt',
};

/** What a submit route answers: either an MJ submit body on HTTP 200, or a raw status. */
interface SubmitAnswer {
  status: number;
  body: unknown;
}

/** A task the route wants created: everything but id, key, times and the fixed fields. */
interface NewTask {
  action: string;
  prompt: string;
  description: string;
}

export async function startFakeMidjourneyUpstream(options: { expectedKeys: string[] }): Promise<FakeMidjourneyUpstream> {
  const requests: RecordedMjRequest[] = [];
  const tasks = new Map<string, FakeMjTask>();
  const submitFaults: MjSubmitFault[] = [];
  const fetchFaults: number[] = [];
  /** Stale copies listed before the live task (`listTwice`). */
  const staleCopies = new Map<string, FakeMjTask>();
  let modalNext = 0;
  let queuedNext = 0;
  let nextId = firstTaskId;
  let uploads = 0;
  let baseUrl = '';

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => sendJson(response, 500, { code: 9, description: `fake midjourney upstream bug: ${String(error)}`, result: null }));
  });

  /** The caller's own task, or undefined (another key's task is as good as unknown). */
  const ownTask = (id: unknown, key: string): FakeMjTask | undefined => {
    if (typeof id !== 'string') return undefined;
    const task = tasks.get(id);
    return task !== undefined && task.key === key ? task : undefined;
  };

  function createTask(spec: NewTask, key: string, body: Record<string, unknown>): SubmitAnswer {
    const id = String(nextId);
    nextId += 1;
    const modal = modalNext > 0;
    if (modal) modalNext -= 1;
    const queued = !modal && queuedNext > 0;
    if (queued) queuedNext -= 1;
    const properties: Record<string, unknown> = { finalPrompt: spec.prompt, discordInstanceId: instanceId, messageId: `msg${id}`, messageHash: `hash${id}` };
    if (typeof body.notifyHook === 'string') properties.notifyHook = body.notifyHook;
    tasks.set(id, {
      id,
      action: spec.action,
      status: modal ? 'MODAL' : 'SUBMITTED',
      progress: '0%',
      prompt: spec.prompt,
      promptEn: spec.prompt,
      description: spec.description,
      state: typeof body.state === 'string' ? body.state : '',
      submitTime: Date.now(),
      startTime: 0,
      finishTime: 0,
      imageUrl: '',
      failReason: '',
      buttons: [],
      properties,
      key,
      body,
    });
    if (modal) return modalAnswer(id, spec.prompt);
    if (queued) return { status: 200, body: { code: 22, description: 'In queue, there are 2 tasks ahead', result: id, properties: { numberOfQueues: 2, discordInstanceId: instanceId } } };
    return { status: 200, body: submitted(id) };
  }

  /** A task created straight into MODAL whatever was queued (Inpaint / CustomZoom actions). */
  function createModalTask(spec: NewTask, key: string, body: Record<string, unknown>): SubmitAnswer {
    modalNext += 1;
    return createTask(spec, key, body);
  }

  function submitRoute(route: string, body: Record<string, unknown>, key: string): SubmitAnswer {
    switch (route) {
      case '/mj/submit/imagine': {
        if (!nonEmpty(body.prompt)) return mjError(4, 'prompt is required');
        if (body.base64Array !== undefined && !isStringArray(body.base64Array)) return mjError(4, 'validation error');
        const prompt = body.prompt as string;
        return createTask({ action: 'IMAGINE', prompt, description: `/imagine ${prompt}` }, key, body);
      }
      case '/mj/submit/change': {
        const action = body.action;
        if (!nonEmpty(body.taskId) || typeof action !== 'string' || !changeActions.includes(action)) return mjError(4, 'validation error');
        const index = body.index;
        if (action !== 'REROLL' && (typeof index !== 'number' || !Number.isInteger(index) || index < 1 || index > 4)) return mjError(4, 'validation error');
        return change(body.taskId as string, action, action === 'REROLL' ? 0 : (index as number), key, body);
      }
      case '/mj/submit/simple-change': {
        const match = typeof body.content === 'string' ? /^\s*(\S+)\s+(?:([UV])([1-4])|(R))\s*$/i.exec(body.content) : null;
        if (match === null) return mjError(4, 'validation error');
        const letter = (match[2] ?? 'R').toUpperCase();
        const action = letter === 'U' ? 'UPSCALE' : letter === 'V' ? 'VARIATION' : 'REROLL';
        return change(match[1] as string, action, match[3] === undefined ? 0 : Number(match[3]), key, body);
      }
      case '/mj/submit/action': {
        if (!nonEmpty(body.taskId) || !nonEmpty(body.customId)) return mjError(4, 'validation error');
        const parent = ownTask(body.taskId, key);
        if (parent === undefined) return mjError(3, 'task not found');
        if (parent.status !== 'SUCCESS') return mjError(4, 'task status not success');
        const customId = body.customId as string;
        const parsed = actionOfCustomId(customId);
        if (parsed === undefined) return mjError(4, 'validation error');
        const description =
          parsed.action === 'UPSCALE' || parsed.action === 'VARIATION' ? `/up ${parent.id} ${parsed.action[0]}${parsed.index}` : parsed.action === 'REROLL' ? `/up ${parent.id} R` : `/action ${parent.id} ${customId}`;
        const spec = { action: parsed.action, prompt: parent.prompt, description };
        return parsed.action === 'INPAINT' || parsed.action === 'CUSTOM_ZOOM' ? createModalTask(spec, key, body) : createTask(spec, key, body);
      }
      case '/mj/submit/modal': {
        if (!nonEmpty(body.taskId)) return mjError(4, 'validation error');
        const task = ownTask(body.taskId, key);
        if (task === undefined) return mjError(3, 'task not found');
        if (task.status !== 'MODAL') return mjError(4, 'task status not modal');
        task.status = 'SUBMITTED';
        if (nonEmpty(body.prompt)) {
          task.prompt = body.prompt as string;
          task.promptEn = body.prompt as string;
          task.properties.finalPrompt = body.prompt;
        }
        return { status: 200, body: submitted(task.id) };
      }
      case '/mj/submit/shorten': {
        if (!nonEmpty(body.prompt)) return mjError(4, 'prompt is required');
        const prompt = body.prompt as string;
        return createTask({ action: 'SHORTEN', prompt, description: `/shorten ${prompt}` }, key, body);
      }
      case '/mj/submit/describe': {
        const single = typeof body.base64 === 'string' && body.base64.startsWith('data:');
        const many = isStringArray(body.base64Array) && body.base64Array.length > 0;
        if (!single && !many) return mjError(4, 'validation error');
        return createTask({ action: 'DESCRIBE', prompt: '', description: `/describe ${nextId}` }, key, body);
      }
      case '/mj/submit/blend': {
        const images = body.base64Array;
        if (!isStringArray(images) || images.length < 2 || images.length > 5) return mjError(4, 'validation error');
        if (body.dimensions !== undefined && (typeof body.dimensions !== 'string' || !blendDimensions.includes(body.dimensions))) return mjError(4, 'validation error');
        return createTask({ action: 'BLEND', prompt: '', description: `/blend ${nextId} ${images.length}` }, key, body);
      }
      case '/mj/submit/edits': {
        if (!nonEmpty(body.prompt)) return mjError(4, 'prompt is required');
        const prompt = body.prompt as string;
        return createTask({ action: 'EDITS', prompt, description: `/edits ${prompt}` }, key, body);
      }
      case '/mj/submit/video': {
        // No authoritative body spec (protocols.md appendix): a pass-through.
        const prompt = typeof body.prompt === 'string' ? body.prompt : '';
        return createTask({ action: 'VIDEO', prompt, description: `/video ${prompt}`.trimEnd() }, key, body);
      }
      case '/mj/insight-face/swap': {
        if (!nonEmpty(body.sourceBase64) || !nonEmpty(body.targetBase64)) return mjError(4, 'validation error');
        return createTask({ action: 'SWAP_FACE', prompt: '', description: `/swap_face ${nextId}` }, key, body);
      }
      case '/mj/submit/upload-discord-images': {
        const images = body.base64Array;
        if (!isStringArray(images) || images.length === 0) return mjError(4, 'validation error');
        const result = images.map(() => {
          uploads += 1;
          return `https://cdn.discordapp.com/attachments/fake/${uploads}.png`;
        });
        return { status: 200, body: { code: 1, description: 'success', result } };
      }
      default:
        throw new Error(`submit route ${route} not handled`);
    }
  }

  function change(parentId: string, action: string, index: number, key: string, body: Record<string, unknown>): SubmitAnswer {
    const parent = ownTask(parentId, key);
    if (parent === undefined) return mjError(3, 'task not found');
    if (parent.status !== 'SUCCESS') return mjError(4, 'task status not success');
    const description = action === 'REROLL' ? `/up ${parent.id} R` : `/up ${parent.id} ${action[0]}${index}`;
    return createTask({ action, prompt: parent.prompt, description }, key, body);
  }

  function faultAnswer(fault: MjSubmitFault): SubmitAnswer {
    if (fault.kind === 'http') return { status: fault.status, body: fault.body === undefined ? { code: 9, description: 'fake failure' } : fault.body };
    return {
      status: 200,
      body: { code: fault.code, description: fault.description ?? defaultFaultDescriptions[fault.code], result: null, properties: fault.properties ?? {} },
    };
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readRequestBody(request);
    const url = new URL(request.url ?? '/', 'http://fake');
    const body = parseJson(rawBody);
    const method = request.method ?? '';
    requests.push({ method, path: request.url ?? '', headers: request.headers, body });

    const image = /^\/images\/([^/]+)\.png$/.exec(url.pathname);
    if (method === 'GET' && image !== null) {
      const id = decodeURIComponent(image[1] as string);
      if (!tasks.has(id)) {
        sendEmpty(response, 404);
        return;
      }
      const bytes = imageOf(id);
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
      response.end(bytes);
      return;
    }

    const secret = request.headers['mj-api-secret'];
    const key = typeof secret === 'string' && options.expectedKeys.includes(secret) ? secret : undefined;
    if (key === undefined) {
      sendEmpty(response, 401);
      return;
    }

    if (method === 'POST' && submitRoutes.includes(url.pathname)) {
      const fault = submitFaults.shift();
      const answer = fault !== undefined ? faultAnswer(fault) : isObject(body) ? submitRoute(url.pathname, body, key) : mjError(4, 'validation error');
      sendJson(response, answer.status, answer.body);
      return;
    }

    if (method === 'POST' && url.pathname === '/mj/task/list-by-condition') {
      const faultStatus = fetchFaults.shift();
      if (faultStatus !== undefined) {
        sendEmpty(response, faultStatus);
        return;
      }
      if (!isObject(body) || !isStringArray(body.ids)) {
        sendJson(response, 400, { code: 4, description: 'validation error', result: null });
        return;
      }
      const found = body.ids.flatMap((id) => {
        const task = ownTask(id, key);
        if (task === undefined) return [];
        const stale = staleCopies.get(task.id);
        return stale === undefined ? [publicTask(task)] : [publicTask(stale), publicTask(task)];
      });
      sendJson(response, 200, found);
      return;
    }

    const fetchOne = /^\/mj\/task\/([^/]+)\/fetch$/.exec(url.pathname);
    if (method === 'GET' && fetchOne !== null) {
      const task = ownTask(decodeURIComponent(fetchOne[1] as string), key);
      if (task === undefined) sendEmpty(response, 404);
      else sendJson(response, 200, publicTask(task));
      return;
    }

    const seed = /^\/mj\/task\/([^/]+)\/image-seed$/.exec(url.pathname);
    if (method === 'GET' && seed !== null) {
      const task = ownTask(decodeURIComponent(seed[1] as string), key);
      if (task === undefined) sendJson(response, 200, { code: 3, description: 'task not found', result: null });
      else if (task.status !== 'SUCCESS') sendJson(response, 200, { code: 4, description: 'task status not success', result: null });
      else sendJson(response, 200, { code: 1, description: 'success', result: seedOf(task.id) });
      return;
    }

    sendNotFound(response, url.pathname);
  }

  baseUrl = await listenOnLoopback(server);
  return {
    url: baseUrl,
    requests,
    tasks,
    enqueueSubmitFault: (fault) => submitFaults.push(fault),
    enqueueFetchFault: (status) => fetchFaults.push(status),
    advance(taskId, change) {
      const task = tasks.get(taskId);
      if (task === undefined) throw new Error(`no fake midjourney task ${taskId}`);
      const now = Date.now();
      if (change.status !== undefined) {
        task.status = change.status;
        if ((change.status === 'IN_PROGRESS' || change.status === 'SUCCESS') && task.startTime === 0) task.startTime = now;
        if (change.status === 'SUCCESS' || change.status === 'FAILURE' || change.status === 'CANCEL') task.finishTime = now;
        if (change.status === 'SUCCESS') {
          task.progress = '100%';
          task.imageUrl = `${baseUrl}/images/${task.id}.png`;
          task.buttons = gridActions.includes(task.action) ? gridButtons(`hash${task.id}`) : [];
        }
      }
      if (change.progress !== undefined) task.progress = change.progress;
      if (change.failReason !== undefined) task.failReason = change.failReason;
    },
    listTwice(taskId) {
      const task = tasks.get(taskId);
      if (task === undefined) throw new Error(`no fake midjourney task ${taskId}`);
      staleCopies.set(taskId, structuredClone(task));
    },
    answerNextWithModal: () => {
      modalNext += 1;
    },
    answerNextQueued: () => {
      queuedNext += 1;
    },
    imageOf,
    close: () => closeServer(server),
  };
}

/** The task as the upstream shows it: everything but the fake's `key` and `body`. */
function publicTask(task: FakeMjTask): Record<string, unknown> {
  return {
    id: task.id,
    action: task.action,
    status: task.status,
    progress: task.progress,
    prompt: task.prompt,
    promptEn: task.promptEn,
    description: task.description,
    state: task.state,
    submitTime: task.submitTime,
    startTime: task.startTime,
    finishTime: task.finishTime,
    imageUrl: task.imageUrl,
    failReason: task.failReason,
    buttons: task.buttons.map((button) => ({ ...button })),
    properties: { ...task.properties },
  };
}

function submitted(id: string): Record<string, unknown> {
  return { code: 1, description: 'Submit success', result: id, properties: { discordInstanceId: instanceId, discordChannelId: channelId } };
}

function modalAnswer(id: string, finalPrompt: string): SubmitAnswer {
  return { status: 200, body: { code: 21, description: 'Waiting for window confirm', result: id, properties: { finalPrompt, remix: true } } };
}

function mjError(code: number, description: string): SubmitAnswer {
  return { status: 200, body: { code, description, result: null } };
}

/** U1..U4, reroll, V1..V4, as a grid message carries them. */
function gridButtons(hash: string): FakeMjTask['buttons'] {
  const button = (customId: string, label: string, emoji = '') => ({ customId, emoji, label, type: 2, style: 2 });
  return [
    ...[1, 2, 3, 4].map((n) => button(`MJ::JOB::upsample::${n}::${hash}`, `U${n}`)),
    button(`MJ::JOB::reroll::0::${hash}::SOLO`, '', '🔄'),
    ...[1, 2, 3, 4].map((n) => button(`MJ::JOB::variation::${n}::${hash}`, `V${n}`)),
  ];
}

/** new-api's customId parser (protocols.md §1.3); undefined for an unknown verb. */
function actionOfCustomId(customId: string): { action: string; index: number } | undefined {
  const segments = customId.split('::');
  if (segments[0] !== 'MJ' || segments.length < 2) return undefined;
  const verb = (segments[1] === 'JOB' ? segments[2] : segments[1]) ?? '';
  const index = Number(segments[3] ?? '0');
  if (verb.includes('upsample')) return { action: 'UPSCALE', index };
  if (verb === 'variation') return { action: 'VARIATION', index };
  if (verb === 'low_variation') return { action: 'LOW_VARIATION', index };
  if (verb === 'high_variation') return { action: 'HIGH_VARIATION', index };
  if (verb.includes('pan')) return { action: 'PAN', index };
  if (verb.includes('reroll')) return { action: 'REROLL', index: 0 };
  if (verb === 'Outpaint') return { action: 'ZOOM', index };
  if (verb === 'CustomZoom') return { action: 'CUSTOM_ZOOM', index };
  if (verb === 'Inpaint') return { action: 'INPAINT', index };
  return undefined;
}

/** A seed derived from the id: decimal digits, below 2^32. */
function seedOf(id: string): string {
  const hash = [...id].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) % 4_294_967_291, 7);
  return String(hash);
}

/** A valid 32×32 RGB PNG whose pixels derive from the id, stored uncompressed (about 3 KB). */
function imageOf(taskId: string): Buffer {
  const seed = [...taskId].reduce((sum, char) => (sum * 33 + char.charCodeAt(0)) % 65_521, 5381);
  const size = 32;
  const raw = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y += 1) {
    const row = y * (1 + size * 3);
    raw[row] = 0; // filter: none
    for (let x = 0; x < size; x += 1) {
      const at = row + 1 + x * 3;
      raw[at] = (x * 8 + seed) % 256;
      raw[at + 1] = (y * 8 + (seed >> 3)) % 256;
      raw[at + 2] = (x * y + (seed >> 6)) % 256;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 0 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed), 0);
  return Buffer.concat([length, typed, crc]);
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

function sendEmpty(response: ServerResponse, status: number): void {
  response.writeHead(status, { 'content-length': 0 });
  response.end();
}

/** Spring's default 404 body, as the Java proxy answers an unknown route. */
function sendNotFound(response: ServerResponse, path: string): void {
  sendJson(response, 404, { timestamp: new Date().toISOString(), status: 404, error: 'Not Found', path });
}
