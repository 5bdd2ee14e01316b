/**
 * A stand-in for the "Suno-API" proxy that new-api's Suno adaptor calls (protocols.md §2) on a real loopback
 * socket: `POST /suno/submit/{MUSIC|LYRICS}`, `POST /suno/fetch` (batch, `{ids}`), `GET /suno/fetch/{id}`, and
 * `GET /files/<clip id>.mp3` (no auth, like a CDN link). Every answer is the task envelope
 * `{"code":"success","message":"","data":…}`, errors `{"code":"<code>","message":"<text>","data":null}`.
 * Each task belongs to the key that submitted it and moves only when the test says (`advance`). It never
 * imports gateway code.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readRequestBody } from './read-request-body.js';
import { closeServer, isObject, listenOnLoopback, parseJson, sendJson } from './fake-http-helpers.js';

export type FakeSunoAction = 'MUSIC' | 'LYRICS';
export type FakeSunoStatus = 'SUBMITTED' | 'QUEUED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE';

export interface FakeSunoTask {
  /** The upstream id (UUID-like), what submit answers in `data`. */
  taskId: string;
  action: FakeSunoAction;
  status: FakeSunoStatus;
  /** `"NN%"`. */
  progress: string;
  failReason: string;
  /** The key that submitted it; only that key can fetch it. */
  key: string;
  /** The submit body (`SunoSubmitReq`) as received. */
  body: Record<string, unknown>;
  /** Unix seconds; 0 until set. */
  submitTime: number;
  startTime: number;
  finishTime: number;
}

export interface RecordedSunoRequest {
  method: string;
  /** With the query string, as received. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  body: unknown;
}

/** The next call of `route` (`submit`: `POST /suno/submit/…`; `fetch`: either fetch form) answers `status` with `body`. */
export interface SunoFault {
  route: 'submit' | 'fetch';
  status: number;
  /** Default `{"code":"upstream_error","message":"fake failure","data":null}`. */
  body?: unknown;
}

export interface SunoTaskChange {
  status?: FakeSunoStatus;
  progress?: string;
  failReason?: string;
}

export interface FakeSunoUpstream {
  url: string;
  requests: RecordedSunoRequest[];
  tasks: Map<string, FakeSunoTask>;
  enqueueFault(fault: SunoFault): void;
  /** Moves a task: `IN_PROGRESS` sets `start_time`, `SUCCESS`/`FAILURE` set `finish_time`, `SUCCESS` sets progress `100%`. */
  advance(taskId: string, change: SunoTaskChange): void;
  /** The bytes `GET /files/<clip id>.mp3` serves. */
  audioOf(clipId: string): Buffer;
  close(): Promise<void>;
}

const actions: readonly string[] = ['MUSIC', 'LYRICS'];

export async function startFakeSunoUpstream(options: { expectedKeys: string[] }): Promise<FakeSunoUpstream> {
  const requests: RecordedSunoRequest[] = [];
  const tasks = new Map<string, FakeSunoTask>();
  const sequences = new Map<string, number>();
  const faults: SunoFault[] = [];
  let sequence = 0;
  let baseUrl = '';

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => sendJson(response, 500, { code: 'internal_error', message: `fake suno upstream bug: ${String(error)}`, data: null }));
  });

  /** Clip ids of a MUSIC task (two clips), UUID-like and numbered like the task. */
  const clipIdsOf = (task: FakeSunoTask): [string, string] => {
    const number = sequences.get(task.taskId) ?? 0;
    return [uuidLike(number, 'c1'), uuidLike(number, 'c2')];
  };

  /** The completed clip ids the file route serves. */
  const servedClip = (clipId: string): boolean =>
    [...tasks.values()].some((task) => task.action === 'MUSIC' && task.status === 'SUCCESS' && clipIdsOf(task).includes(clipId));

  function recordOf(task: FakeSunoTask): Record<string, unknown> {
    return {
      task_id: task.taskId,
      action: task.action,
      status: task.status,
      fail_reason: task.failReason,
      submit_time: task.submitTime,
      start_time: task.startTime,
      finish_time: task.finishTime,
      progress: task.progress,
      data: task.action === 'MUSIC' ? clipsOf(task) : lyricsOf(task),
    };
  }

  function clipsOf(task: FakeSunoTask): Array<Record<string, unknown>> {
    // Clips exist once the upstream starts generating; before that `data` is `[]`.
    if (task.startTime === 0 && task.status !== 'SUCCESS') return [];
    const body = task.body;
    const complete = task.status === 'SUCCESS';
    const failed = task.status === 'FAILURE';
    const prompt = stringOr(body.prompt, '');
    const description = stringOr(body.gpt_description_prompt, '');
    const title = stringOr(body.title, '') || titleFrom(prompt || description);
    return clipIdsOf(task).map((id, index) => ({
      id,
      title,
      status: complete ? 'complete' : failed ? 'error' : 'streaming',
      audio_url: complete ? `${baseUrl}/files/${id}.mp3` : '',
      image_url: `${baseUrl}/files/image_${id}.jpeg`,
      image_large_url: `${baseUrl}/files/image_large_${id}.jpeg`,
      video_url: complete ? `${baseUrl}/files/${id}.mp4` : '',
      model_name: 'chirp-v3',
      major_model_version: 'v3',
      text: prompt || lyricsFrom(description),
      metadata: {
        tags: stringOr(body.tags, ''),
        prompt,
        gpt_description_prompt: description,
        duration: complete ? 120 + index * 7.5 : null,
        error_type: failed ? 'generation_failed' : null,
        error_message: failed ? task.failReason || 'generation failed' : null,
      },
    }));
  }

  function lyricsOf(task: FakeSunoTask): Record<string, unknown> | null {
    if (task.status !== 'SUCCESS') return null;
    const prompt = stringOr(task.body.prompt, '');
    return { id: task.taskId, text: lyricsFrom(prompt), title: titleFrom(prompt), status: 'complete' };
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readRequestBody(request);
    const url = new URL(request.url ?? '/', 'http://fake');
    const body = parseJson(rawBody);
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });

    const file = /^\/files\/([^/]+)\.mp3$/.exec(url.pathname);
    if (request.method === 'GET' && file !== null) {
      const clipId = decodeURIComponent(file[1] as string);
      if (!servedClip(clipId)) {
        sendJson(response, 404, { code: 'not_found', message: 'file not found', data: null });
        return;
      }
      const bytes = audioOf(clipId);
      response.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': bytes.length });
      response.end(bytes);
      return;
    }

    const key = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (key === undefined || !options.expectedKeys.includes(key)) {
      sendJson(response, 401, { code: 'unauthorized', message: 'invalid token', data: null });
      return;
    }

    const submit = /^\/suno\/submit\/([^/]+)$/.exec(url.pathname);
    const fetchOne = /^\/suno\/fetch\/([^/]+)$/.exec(url.pathname);
    const isBatch = url.pathname === '/suno/fetch';
    const route = request.method === 'POST' && submit !== null ? 'submit' : (request.method === 'GET' && fetchOne !== null) || (request.method === 'POST' && isBatch) ? 'fetch' : undefined;
    if (route === undefined) {
      sendJson(response, 404, { code: 'not_found', message: `no route ${request.method ?? ''} ${url.pathname}`, data: null });
      return;
    }
    const faultIndex = faults.findIndex((fault) => fault.route === route);
    if (faultIndex !== -1) {
      const [fault] = faults.splice(faultIndex, 1) as [SunoFault];
      sendJson(response, fault.status, fault.body === undefined ? { code: 'upstream_error', message: 'fake failure', data: null } : fault.body);
      return;
    }

    if (submit !== null) {
      const action = decodeURIComponent(submit[1] as string);
      if (!actions.includes(action)) {
        sendJson(response, 400, { code: 'invalid_action', message: `invalid action: ${action}`, data: null });
        return;
      }
      if (!isObject(body)) {
        sendJson(response, 400, { code: 'invalid_request', message: 'request body must be a JSON object', data: null });
        return;
      }
      if (action === 'LYRICS' && !nonEmpty(body.prompt)) {
        sendJson(response, 400, { code: 'invalid_request', message: 'prompt is required', data: null });
        return;
      }
      if (action === 'MUSIC' && !nonEmpty(body.prompt) && !nonEmpty(body.gpt_description_prompt)) {
        sendJson(response, 400, { code: 'invalid_request', message: 'prompt or gpt_description_prompt is required', data: null });
        return;
      }
      sequence += 1;
      const taskId = uuidLike(sequence, '7a');
      sequences.set(taskId, sequence);
      tasks.set(taskId, {
        taskId,
        action: action as FakeSunoAction,
        status: 'SUBMITTED',
        progress: '0%',
        failReason: '',
        key,
        body,
        submitTime: Math.floor(Date.now() / 1000),
        startTime: 0,
        finishTime: 0,
      });
      sendJson(response, 200, { code: 'success', message: '', data: taskId });
      return;
    }

    if (fetchOne !== null) {
      const task = tasks.get(decodeURIComponent(fetchOne[1] as string));
      if (task === undefined || task.key !== key) {
        sendJson(response, 400, { code: 'task_not_exist', message: 'task_not_exist', data: null });
        return;
      }
      sendJson(response, 200, { code: 'success', message: '', data: recordOf(task) });
      return;
    }

    // Batch fetch: the tasks among `ids` this key owns, in the order asked; unknown ids are left out.
    // `action`, if sent, is accepted and not used to filter.
    if (!isObject(body) || !Array.isArray(body.ids) || !body.ids.every((id) => typeof id === 'string')) {
      sendJson(response, 400, { code: 'invalid_request', message: 'ids must be an array of strings', data: null });
      return;
    }
    const found = (body.ids as string[]).flatMap((id) => {
      const task = tasks.get(id);
      return task !== undefined && task.key === key ? [recordOf(task)] : [];
    });
    sendJson(response, 200, { code: 'success', message: '', data: found });
  }

  baseUrl = await listenOnLoopback(server);
  return {
    url: baseUrl,
    requests,
    tasks,
    enqueueFault: (fault) => faults.push(fault),
    advance(taskId, change) {
      const task = tasks.get(taskId);
      if (task === undefined) throw new Error(`no fake suno task ${taskId}`);
      const now = Math.floor(Date.now() / 1000);
      if (change.status !== undefined) {
        task.status = change.status;
        if ((change.status === 'IN_PROGRESS' || change.status === 'SUCCESS') && task.startTime === 0) task.startTime = now;
        if (change.status === 'SUCCESS' || change.status === 'FAILURE') task.finishTime = now;
        if (change.status === 'SUCCESS') task.progress = '100%';
      }
      if (change.progress !== undefined) task.progress = change.progress;
      if (change.failReason !== undefined) task.failReason = change.failReason;
    },
    audioOf,
    close: () => closeServer(server),
  };
}

/** A few deterministic bytes per clip: an ID3 header, then bytes derived from the id. */
function audioOf(clipId: string): Buffer {
  const seed = [...clipId].reduce((sum, char) => sum + char.charCodeAt(0), 0);
  const bytes = Buffer.alloc(64);
  bytes.set(Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]));
  for (let index = 10; index < bytes.length; index += 1) bytes[index] = (index * 31 + seed) % 256;
  return bytes;
}

/** `xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx`, numbered per server; `tag` (2 hex digits) tells tasks from clips. */
function uuidLike(number: number, tag: string): string {
  const hex = number.toString(16).padStart(8, '0');
  return `${hex}-${tag}00-4000-8000-${tag}${hex}00`;
}

function titleFrom(text: string): string {
  const words = text.trim().split(/\s+/).filter(Boolean).slice(0, 4).join(' ');
  return words === '' ? 'Untitled' : words;
}

function lyricsFrom(prompt: string): string {
  const line = prompt.trim() === '' ? 'la la la' : prompt.trim();
  return `[Verse]\n${line}\n\n[Chorus]\n${line}, ${line}`;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
