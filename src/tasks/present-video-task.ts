import type { TaskRow } from '../storage/tasks-repository.js';
import { readJsonObject } from './read-json-object.js';
import { openaiVideoStatus, taskDtoStatus, type TaskStatus } from './task-status.js';

/** What the task's submit asked for (tasks.properties). */
export interface VideoTaskProperties {
  seconds: number;
  size: string | undefined;
  /** A remix's origin: its public id. */
  remixedFrom: string | undefined;
  /**
   * What the task was priced by, so a remix costs what its origin cost: the price names tried before the
   * model's own, and the seconds billed. Undefined for a row stored before they were kept.
   */
  priceNames: string[] | undefined;
  billedSeconds: number | undefined;
}

/**
 * Pure: a video task as the OpenAI video object (spec §2.1 / §2.2, protocols.md §4), from the row alone:
 * the public id (never the upstream's), the state mapped to `queued | in_progress | completed | failed`,
 * progress, times in Unix seconds, and, once completed, where to fetch it (`video_url` and
 * `metadata.url`: this gateway's content route). Of the upstream's object only `expires_at` and `prompt`
 * are shown; its ids and its remix links name upstream tasks.
 */
export function presentVideoTask(task: TaskRow, contentUrl: string): Record<string, unknown> {
  const status = task.status as TaskStatus;
  const properties = readVideoTaskProperties(task.properties);
  const upstream = readJsonObject(task.result);
  const video: Record<string, unknown> = {
    id: task.public_id,
    task_id: task.public_id,
    object: 'video',
    model: task.model,
    status: openaiVideoStatus(status),
    progress: status === 'success' ? 100 : task.progress,
    created_at: Math.floor(task.created_at / 1000),
    completed_at: task.completed_at === null ? null : Math.floor(task.completed_at / 1000),
    expires_at: typeof upstream?.expires_at === 'number' ? upstream.expires_at : null,
    seconds: String(properties.seconds),
    size: properties.size ?? (typeof upstream?.size === 'string' ? upstream.size : ''),
    error: status === 'failure' ? { code: 'task_failed', message: task.fail_reason ?? 'The task failed.' } : null,
  };
  if (typeof upstream?.prompt === 'string') video.prompt = upstream.prompt;
  if (properties.remixedFrom !== undefined) video.remixed_from_video_id = properties.remixedFrom;
  if (status === 'success') {
    video.video_url = contentUrl;
    video.metadata = { url: contentUrl };
  }
  return video;
}

/**
 * Pure: the unified query's answer (`GET /v1/video/generations/{id}`), new-api's `{code, message, data}`
 * wrapper around its TaskDto (protocols.md §0), without the fields that are the gateway's own business
 * (channel, quota, upstream data).
 */
export function presentTaskDto(task: TaskRow, contentUrl: string): Record<string, unknown> {
  const status = task.status as TaskStatus;
  const properties = readVideoTaskProperties(task.properties);
  return {
    code: 'success',
    message: '',
    data: {
      task_id: task.public_id,
      action: 'generate',
      model: task.model,
      status: taskDtoStatus(status),
      progress: `${status === 'success' ? 100 : task.progress}%`,
      fail_reason: status === 'failure' ? (task.fail_reason ?? 'The task failed.') : '',
      ...(status === 'success' ? { result_url: contentUrl } : {}),
      submit_time: Math.floor(task.created_at / 1000),
      finish_time: task.completed_at === null ? 0 : Math.floor(task.completed_at / 1000),
      properties: { seconds: String(properties.seconds), ...(properties.size === undefined ? {} : { size: properties.size }) },
    },
  };
}

/** What a task's submit asked for, from its row. */
export function readVideoTaskProperties(text: string): VideoTaskProperties {
  const json = readJsonObject(text);
  return {
    seconds: typeof json?.seconds === 'number' ? json.seconds : 0,
    size: typeof json?.size === 'string' ? json.size : undefined,
    remixedFrom: typeof json?.remixed_from === 'string' ? json.remixed_from : undefined,
    priceNames: isTextList(json?.price_names) ? json.price_names : undefined,
    billedSeconds: typeof json?.billed_seconds === 'number' ? json.billed_seconds : undefined,
  };
}

function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
