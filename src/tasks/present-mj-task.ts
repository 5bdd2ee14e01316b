import { isRecord } from '../convert/shared/is-record.js';
import type { MjTaskColumns, TaskRow } from '../storage/tasks-repository.js';
import { readJsonObject } from './read-json-object.js';
import { showPublicTaskIds } from './show-public-task-ids.js';
import type { TaskStatus } from './task-status.js';

/** The proxy's `properties` a client may see: prompts and hints, never its accounts, channels or message ids. */
const visibleProperties = ['finalPrompt', 'finalZhPrompt', 'promptEn', 'bannedWord', 'remix', 'status', 'imageUrl', 'numberOfQueues'];

/**
 * Pure: the answer to a `/mj/submit/*` (protocols.md §1.4) for the task just recorded: the proxy's code
 * (21 only for the actions whose modal the client must open, else 1; a refusal's own code), its
 * description, the public task id (an upload: its image links), and the visible properties.
 */
export function presentMjSubmitAnswer(task: TaskRow, keepModalCode: boolean): Record<string, unknown> {
  const answer = readJsonObject(task.result) ?? {};
  const code = typeof answer.code === 'number' ? answer.code : 1;
  const description = typeof answer.description === 'string' ? answer.description : '';
  const properties = pickVisible(answer.properties);
  if (task.status === 'failure') return { code, description, result: null, properties };
  if (Array.isArray(answer.result)) return { code: 1, description, result: answer.result, properties };
  return { code: code === 21 && keepModalCode && task.status !== 'success' ? 21 : 1, description, result: task.public_id, properties };
}

/** The Midjourney-proxy task object (spec §2.12, protocols.md §1.5) as the gateway shows it. */
export interface MjTaskObject {
  id: string;
  action: string;
  customId: string;
  botType: string;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  status: string;
  progress: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string | null;
  videoUrl?: string;
  videoUrls?: Array<{ url: string }>;
  failReason: string | null;
  buttons: Array<Record<string, unknown>>;
  properties: Record<string, unknown>;
}

/**
 * Pure: a task as the Midjourney-proxy task object (spec §2.12, protocols.md §1.5), from its row and what
 * the proxy last reported: the public id (the proxy's ids, of this task and of the one it continues, are
 * shown as public ones in its texts; links are the proxy's own), the MJ status (`MODAL` while the proxy waits for one), times in milliseconds,
 * `"NN%"` progress (`""` after a failure), the image and buttons once made.
 */
export function presentMjTask(task: MjTaskColumns): MjTaskObject {
  const status = task.status as TaskStatus;
  const properties = readJsonObject(task.properties) ?? {};
  const stored = readJsonObject(task.result);
  // The row keeps the submit answer (`{code, …}`) until the first poll, then the proxy's task object.
  const record = stored !== undefined && typeof stored.code !== 'number' ? stored : {};
  const answerProperties = stored !== undefined && typeof stored.code === 'number' && isRecord(stored.properties) ? stored.properties : {};
  const ids = showPublicTaskIds(task, properties);
  const text = (value: unknown) => (typeof value === 'string' ? ids(value) : '');
  // Links are shown as the proxy gave them (they point at its files); `/mj/image/{id}` relays them.
  const link = (value: unknown) => (typeof value === 'string' ? value : '');
  const imageUrl = link(record.imageUrl) || link(answerProperties.imageUrl);
  return {
    id: task.public_id,
    action: typeof properties.action === 'string' ? properties.action : '',
    customId: typeof properties.customId === 'string' ? properties.customId : '',
    botType: typeof properties.botType === 'string' ? properties.botType : typeof record.botType === 'string' ? record.botType : 'MID_JOURNEY',
    prompt: typeof record.prompt === 'string' ? record.prompt : typeof properties.prompt === 'string' ? properties.prompt : '',
    promptEn: text(record.promptEn),
    description: text(record.description),
    state: typeof properties.state === 'string' ? properties.state : '',
    status: mjStatus(status, record.status),
    progress: status === 'failure' ? '' : `${status === 'success' ? 100 : task.progress}%`,
    submitTime: task.created_at,
    startTime: typeof record.startTime === 'number' ? record.startTime : 0,
    finishTime: task.completed_at ?? 0,
    imageUrl: imageUrl === '' ? null : imageUrl,
    ...(typeof record.videoUrl === 'string' ? { videoUrl: record.videoUrl } : {}),
    ...(Array.isArray(record.videoUrls) ? { videoUrls: record.videoUrls.filter(isRecord).map((video) => ({ url: link(video.url) })) } : {}),
    failReason: status === 'failure' ? ids(task.fail_reason ?? 'The task failed.') : null,
    buttons: status === 'success' && Array.isArray(record.buttons) ? record.buttons.filter(isRecord).map(presentButton) : [],
    properties: pickVisible({ ...answerProperties, ...(isRecord(record.properties) ? record.properties : {}) }, ['finalPrompt', 'finalZhPrompt']),
  };
}

/** The image the proxy reported for a task (protocols.md §1.5), for `/mj/image/{id}`; undefined before it has one. */
export function mjImageUrlOf(task: Pick<TaskRow, 'result'>): string | undefined {
  const stored = readJsonObject(task.result);
  if (stored === undefined) return undefined;
  const url = typeof stored.code === 'number' ? (isRecord(stored.properties) ? stored.properties.imageUrl : undefined) : stored.imageUrl;
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : undefined;
}

function mjStatus(status: TaskStatus, reported: unknown): string {
  switch (status) {
    case 'not_start':
      return 'NOT_START';
    case 'submitted':
    case 'queued':
      return reported === 'MODAL' ? 'MODAL' : 'SUBMITTED';
    case 'in_progress':
      return 'IN_PROGRESS';
    case 'success':
      return 'SUCCESS';
    case 'failure':
      return 'FAILURE';
  }
}

function presentButton(button: Record<string, unknown>): Record<string, unknown> {
  return { customId: button.customId ?? '', emoji: button.emoji ?? '', label: button.label ?? '', type: button.type ?? 2, style: button.style ?? 2 };
}

function pickVisible(value: unknown, names: readonly string[] = visibleProperties): Record<string, unknown> {
  if (!isRecord(value)) return {};
  const picked: Record<string, unknown> = {};
  for (const name of names) if (value[name] !== undefined) picked[name] = value[name];
  return picked;
}
