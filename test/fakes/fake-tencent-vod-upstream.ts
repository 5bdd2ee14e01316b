/**
 * A stand-in for Tencent Cloud VOD's API 3.0 endpoint (`vod.tencentcloudapi.com`, protocols.md §5.1 (B),
 * §5.2–5.4) on a real loopback socket: `POST /` with `X-TC-Action` `CreateAigcVideoTask` or
 * `DescribeTaskDetail`, TC3-HMAC-SHA256 checked by verify-tc3-signature.ts, and every answer HTTP 200 JSON
 * `{"Response":{…,"RequestId"}}` (errors as `Response.Error`), as Tencent answers. Tasks move only when the
 * test says (`advance`); a finished task's files are served at `GET /files/<hash>.mp4|.jpg` without auth,
 * like the temporary CDN URLs. It never imports gateway code.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { verifyTc3Request } from './verify-tc3-signature.js';
import { readRequestBody } from './read-request-body.js';
import { closeServer, listenOnLoopback } from './fake-http-helpers.js';

export type FakeVodTaskStatus = 'WAITING' | 'PROCESSING' | 'FINISH' | 'ABORTED';

export interface FakeVodTask {
  taskId: string;
  status: FakeVodTaskStatus;
  progress: number;
  errCode: number;
  errCodeExt: string;
  message: string;
  /** FINISH without any FileUrl (a failure the adaptors must detect). */
  noUrl: boolean;
  /** The whole CreateAigcVideoTask body, echoed as `AigcVideoTask.Input`. */
  input: Record<string, unknown>;
  /** The SecretId that created it. */
  secretId: string;
  /** Unix ms. */
  createdAt: number;
  beganAt: number | null;
  finishedAt: number | null;
}

export interface RecordedVodRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  /** `X-TC-Action`; undefined for file downloads or when missing. */
  action: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON (or the text when it is not JSON); undefined for an empty body. */
  body: unknown;
  rawBody: Buffer;
}

export type VodFault = { action: string; error: { Code: string; Message: string } } | { action: string; httpStatus: number; body?: string };

export interface FakeTencentVodUpstream {
  /** `http://127.0.0.1:<port>`; the API is `POST {url}/`. */
  url: string;
  requests: RecordedVodRequest[];
  tasks: Map<string, FakeVodTask>;
  /** The next call of `action` (after the signature checks out) answers this error or HTTP status. */
  enqueueFault(fault: VodFault): void;
  advance(taskId: string, change: { status?: FakeVodTaskStatus; progress?: number; errCode?: number; errCodeExt?: string; message?: string; noUrl?: boolean }): void;
  /** The main video's FileUrl (`{url}/files/<hash>.mp4`) a successful FINISH reports. */
  fileUrlOf(taskId: string): string;
  /** The bytes that URL serves. */
  contentOf(taskId: string): Buffer;
  close(): Promise<void>;
}

const apiVersion = '2018-07-17';
const modelNames = ['Kling', 'Vidu', 'Hailuo', 'GV', 'OS', 'Hunyuan', 'Mingmou', 'SV', 'JV'];
const createFields = [
  'SubAppId', 'ModelName', 'ModelVersion', 'FileInfos', 'SubjectInfos', 'LastFrameFileId', 'LastFrameUrl', 'Prompt', 'NegativePrompt', 'EnhancePrompt',
  'OutputConfig', 'InputRegion', 'SceneType', 'Procedure', 'Seed', 'SessionId', 'SessionContext', 'TasksPriority', 'ExtInfo', 'GenerationMode', 'AudioInfos',
];
const describeFields = ['TaskId', 'SubAppId'];
const jpegBytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]);

type ApiError = { Code: string; Message: string };

/** Tencent's time format: ISO 8601 to the second, UTC. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export async function startFakeTencentVodUpstream(options: { secrets: Record<string, string>; subAppId: number; fileBytes?: number; now?: () => number }): Promise<FakeTencentVodUpstream> {
  const requests: RecordedVodRequest[] = [];
  const tasks = new Map<string, FakeVodTask>();
  const faults: VodFault[] = [];
  const fileBytes = options.fileBytes ?? 2 * 1024 * 1024 + 5;
  const now = options.now ?? Date.now;
  let sequence = 0;
  let baseUrl = '';

  const fileIdOf = (taskId: string) => createHash('sha256').update(`vod-file:${taskId}`).digest('hex').slice(0, 32);
  const fileUrlOf = (taskId: string) => `${baseUrl}/files/${fileIdOf(taskId)}.mp4`;
  const hasFiles = (task: FakeVodTask) => task.status === 'FINISH' && task.errCode === 0 && !task.noUrl;

  const contentOf = (taskId: string) => {
    const bytes = Buffer.alloc(fileBytes);
    const seed = [...taskId].reduce((sum, char) => sum + char.charCodeAt(0), 0);
    // An MP4 `ftyp` box first (isom), then bytes that are not text.
    bytes.set(Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 0x02, 0, 0x69, 0x73, 0x6f, 0x6d, 0x6d, 0x70, 0x34, 0x31]).subarray(0, fileBytes));
    for (let index = 24; index < fileBytes; index += 1) bytes[index] = (index * 131 + seed) % 256;
    return bytes;
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 200, { Response: { Error: { Code: 'InternalError', Message: `fake vod upstream bug: ${String(error)}` }, RequestId: randomUUID() } });
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readRequestBody(request);
    const path = request.url ?? '/';
    const pathname = new URL(path, 'http://fake').pathname;
    const actionHeader = request.headers['x-tc-action'];
    const action = Array.isArray(actionHeader) ? actionHeader[0] : actionHeader;
    const recorded: RecordedVodRequest = { method: request.method ?? '', path, action, headers: request.headers, body: parseBody(rawBody), rawBody };
    requests.push(recorded);

    const file = /^\/files\/([0-9a-f]{32})\.(mp4|jpg)$/.exec(pathname);
    if ((request.method === 'GET' || request.method === 'HEAD') && file !== null) {
      recorded.action = undefined;
      const task = [...tasks.values()].find((candidate) => fileIdOf(candidate.taskId) === file[1]);
      if (task === undefined || !hasFiles(task)) {
        sendText(response, 404, 'text/plain', 'Not Found');
        return;
      }
      const bytes = file[2] === 'mp4' ? contentOf(task.taskId) : jpegBytes;
      response.writeHead(200, { 'content-type': file[2] === 'mp4' ? 'video/mp4' : 'image/jpeg', 'content-length': bytes.length });
      // Written in 64 KiB pieces, as a CDN streams a file.
      for (let offset = 0; offset < bytes.length; offset += 65_536) {
        if (!response.write(bytes.subarray(offset, offset + 65_536))) await new Promise((resolve) => response.once('drain', resolve));
      }
      response.end();
      return;
    }
    if (request.method !== 'POST' || pathname !== '/') {
      sendText(response, 404, 'text/plain', 'Not Found');
      return;
    }

    const answer = (fields: Record<string, unknown>) => sendJson(response, 200, { Response: { ...fields, RequestId: randomUUID() } });
    const fail = (error: ApiError) => answer({ Error: error });

    if (action === undefined || action === '') return fail({ Code: 'MissingParameter', Message: 'The request is missing a required parameter `X-TC-Action`.' });
    const version = request.headers['x-tc-version'];
    if (version === undefined || version === '') return fail({ Code: 'MissingParameter', Message: 'The request is missing a required parameter `X-TC-Version`.' });
    if (version !== apiVersion) return fail({ Code: 'NoSuchVersion', Message: `The requested version \`${String(version)}\` of service \`vod\` does not exist.` });

    const auth = verifyTc3Request({ method: 'POST', headers: request.headers, body: rawBody, secrets: options.secrets, service: 'vod', nowSeconds: Math.floor(now() / 1000) });
    if (!auth.ok) return fail({ Code: auth.code, Message: auth.message });

    const faultIndex = faults.findIndex((fault) => fault.action === action);
    if (faultIndex >= 0) {
      const [fault] = faults.splice(faultIndex, 1);
      if (fault !== undefined && 'error' in fault) return fail(fault.error);
      if (fault !== undefined) {
        sendText(response, fault.httpStatus, 'text/html', fault.body ?? `<html><head><title>${fault.httpStatus}</title></head><body><center><h1>${fault.httpStatus}</h1></center></body></html>`);
        return;
      }
    }

    if (action !== 'CreateAigcVideoTask' && action !== 'DescribeTaskDetail') {
      return fail({ Code: 'InvalidAction', Message: `The requested action \`${action}\` does not exist for service \`vod\` version \`${apiVersion}\`.` });
    }
    const body = recorded.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return fail({ Code: 'InvalidParameter', Message: 'The request body is not a JSON object.' });
    const fields = body as Record<string, unknown>;
    const unknown = Object.keys(fields).find((name) => !(action === 'CreateAigcVideoTask' ? createFields : describeFields).includes(name));
    if (unknown !== undefined) return fail({ Code: 'UnknownParameter', Message: `The parameter \`${unknown}\` is not recognized.` });
    const subAppError = checkSubAppId(fields.SubAppId, options.subAppId);
    if (subAppError !== undefined) return fail(subAppError);

    if (action === 'CreateAigcVideoTask') {
      const invalid = validateCreate(fields);
      if (invalid !== undefined) return fail(invalid);
      sequence += 1;
      const taskId = `${options.subAppId}-AigcVideoTask-${createHash('md5').update(`aigc-video-task:${sequence}`).digest('hex')}`;
      tasks.set(taskId, {
        taskId,
        status: 'WAITING',
        progress: 0,
        errCode: 0,
        errCodeExt: '',
        message: '',
        noUrl: false,
        input: structuredClone(fields),
        secretId: auth.secretId,
        createdAt: now(),
        beganAt: null,
        finishedAt: null,
      });
      return answer({ TaskId: taskId });
    }

    if (fields.TaskId === undefined) return fail({ Code: 'MissingParameter', Message: 'The request is missing a required parameter `TaskId`.' });
    if (typeof fields.TaskId !== 'string') return fail({ Code: 'InvalidParameter', Message: 'The type of parameter `TaskId` must be String.' });
    const task = tasks.get(fields.TaskId);
    if (task === undefined) return fail({ Code: 'ResourceNotFound.TaskNotExist', Message: 'The task does not exist.' });
    return answer(describe(task));
  }

  function describe(task: FakeVodTask): Record<string, unknown> {
    const fileInfos: unknown[] = [];
    if (hasFiles(task)) {
      const fileId = fileIdOf(task.taskId);
      const outputConfig = (task.input.OutputConfig ?? {}) as Record<string, unknown>;
      const permanent = outputConfig.StorageMode === 'Permanent';
      const expireTime = permanent ? '' : isoSeconds((task.finishedAt ?? now()) + 7 * 86_400_000);
      const common = {
        StorageMode: permanent ? 'Permanent' : 'Temporary',
        MediaName: typeof outputConfig.MediaName === 'string' ? outputConfig.MediaName : '',
        ClassId: typeof outputConfig.ClassId === 'number' ? outputConfig.ClassId : 0,
        ExpireTime: expireTime,
      };
      const duration = typeof outputConfig.Duration === 'number' ? outputConfig.Duration : 5;
      fileInfos.push({ ...common, FileType: 'jpg', FileUrl: `${baseUrl}/files/${fileId}.jpg`, FileId: '', MetaData: { Size: jpegBytes.length, Container: 'jpg', Width: 1280, Height: 720, Duration: 0 }, UsageType: 'image_url' });
      fileInfos.push({
        ...common,
        FileType: 'mp4',
        FileUrl: `${baseUrl}/files/${fileId}.mp4`,
        FileId: permanent ? `5145403${String(Number.parseInt(fileId.slice(0, 8), 16)).padStart(11, '0')}` : '',
        MetaData: { Size: fileBytes, Container: 'mov,mp4,m4a,3gp,3g2,mj2', Width: 1280, Height: 720, Duration: duration, VideoDuration: duration, AudioDuration: 0 },
        UsageType: '',
      });
    }
    return {
      TaskType: 'AigcVideoTask',
      Status: task.status,
      CreateTime: isoSeconds(task.createdAt),
      BeginProcessTime: task.beganAt === null ? '' : isoSeconds(task.beganAt),
      FinishTime: task.finishedAt === null ? '' : isoSeconds(task.finishedAt),
      AigcVideoTask: {
        TaskId: task.taskId,
        Status: task.status,
        ErrCode: task.errCode,
        ErrCodeExt: task.errCodeExt,
        Message: task.message,
        Progress: task.progress,
        Input: structuredClone(task.input),
        Output: { FileInfos: fileInfos },
        SessionId: typeof task.input.SessionId === 'string' ? task.input.SessionId : '',
        SessionContext: typeof task.input.SessionContext === 'string' ? task.input.SessionContext : '',
      },
    };
  }

  baseUrl = await listenOnLoopback(server);
  return {
    url: baseUrl,
    requests,
    tasks,
    enqueueFault: (fault) => faults.push(fault),
    advance(taskId, change) {
      const task = tasks.get(taskId);
      if (task === undefined) throw new Error(`no fake VOD task ${taskId}`);
      if (change.errCode !== undefined) task.errCode = change.errCode;
      if (change.errCodeExt !== undefined) task.errCodeExt = change.errCodeExt;
      if (change.noUrl !== undefined) task.noUrl = change.noUrl;
      if (change.status !== undefined) {
        task.status = change.status;
        if (change.status !== 'WAITING') task.beganAt ??= now();
        if (change.status === 'FINISH' || change.status === 'ABORTED') task.finishedAt ??= now();
        if (change.status === 'FINISH' && task.errCode === 0) {
          task.progress = 100;
          if (task.message === '') task.message = 'SUCCESS';
        }
      }
      if (change.progress !== undefined) task.progress = change.progress;
      if (change.message !== undefined) task.message = change.message;
    },
    fileUrlOf,
    contentOf,
    close: () => closeServer(server),
  };
}

function checkSubAppId(value: unknown, expected: number): ApiError | undefined {
  if (value === undefined) return { Code: 'InvalidParameterValue.SubAppId', Message: `SubAppId is required for this account (expected ${expected}).` };
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return { Code: 'InvalidParameter', Message: 'The type of parameter `SubAppId` must be UInt64.' };
  if (value !== expected) return { Code: 'InvalidParameterValue.SubAppId', Message: `SubAppId ${value} does not exist or does not belong to this account.` };
  return undefined;
}

function validateCreate(fields: Record<string, unknown>): ApiError | undefined {
  const missing = (name: string): ApiError => ({ Code: 'MissingParameter', Message: `The request is missing a required parameter \`${name}\`.` });
  const wrongType = (name: string, type: string): ApiError => ({ Code: 'InvalidParameter', Message: `The type of parameter \`${name}\` must be ${type}.` });
  const badValue = (name: string, detail: string): ApiError => ({ Code: 'InvalidParameterValue', Message: `The value of parameter \`${name}\` is invalid: ${detail}` });

  if (fields.ModelName === undefined || fields.ModelName === '') return missing('ModelName');
  if (typeof fields.ModelName !== 'string') return wrongType('ModelName', 'String');
  if (!modelNames.includes(fields.ModelName)) return badValue('ModelName', `\`${fields.ModelName}\` is not one of ${modelNames.join(', ')}.`);
  if (fields.ModelVersion === undefined || fields.ModelVersion === '') return missing('ModelVersion');
  if (typeof fields.ModelVersion !== 'string') return wrongType('ModelVersion', 'String');

  if (fields.FileInfos !== undefined && !Array.isArray(fields.FileInfos)) return wrongType('FileInfos', 'Array of AigcVideoTaskInputFileInfo');
  const fileInfos = (fields.FileInfos ?? []) as unknown[];
  if (fileInfos.length > 3) return badValue('FileInfos', 'at most 3 items.');
  for (const [index, item] of fileInfos.entries()) {
    const name = `FileInfos.${index}`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return wrongType(name, 'AigcVideoTaskInputFileInfo');
    const info = item as Record<string, unknown>;
    if (info.Type === undefined) return missing(`${name}.Type`);
    if (info.Type === 'File' && (typeof info.FileId !== 'string' || info.FileId === '')) return missing(`${name}.FileId`);
    else if (info.Type === 'Url' && (typeof info.Url !== 'string' || info.Url === '')) return missing(`${name}.Url`);
    else if (info.Type === 'Base64' && (typeof info.Base64 !== 'string' || info.Base64 === '')) return missing(`${name}.Base64`);
    else if (info.Type !== 'File' && info.Type !== 'Url' && info.Type !== 'Base64') return badValue(`${name}.Type`, 'File, Url or Base64.');
    if (info.Category !== undefined && !['Image', 'Video', 'Audio'].includes(String(info.Category))) return badValue(`${name}.Category`, 'Image, Video or Audio.');
  }

  if (fields.Prompt !== undefined && typeof fields.Prompt !== 'string') return wrongType('Prompt', 'String');
  if (fileInfos.length === 0 && (fields.Prompt === undefined || fields.Prompt === '')) return missing('Prompt');

  if (fields.OutputConfig !== undefined) {
    if (fields.OutputConfig === null || typeof fields.OutputConfig !== 'object' || Array.isArray(fields.OutputConfig)) return wrongType('OutputConfig', 'AigcVideoOutputConfig');
    const config = fields.OutputConfig as Record<string, unknown>;
    if (config.Duration !== undefined && (typeof config.Duration !== 'number' || !Number.isFinite(config.Duration))) return wrongType('OutputConfig.Duration', 'Float');
    if (config.StorageMode !== undefined && config.StorageMode !== 'Temporary' && config.StorageMode !== 'Permanent') return badValue('OutputConfig.StorageMode', 'Temporary or Permanent.');
  }
  if (fields.Seed !== undefined && (typeof fields.Seed !== 'number' || !Number.isInteger(fields.Seed))) return wrongType('Seed', 'Integer');
  return undefined;
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  sendText(response, status, 'application/json', JSON.stringify(body));
}

function sendText(response: ServerResponse, status: number, contentType: string, text: string): void {
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
