import type { ChannelRecord } from '../catalog/catalog-records.js';
import type { TaskRow } from '../storage/tasks-repository.js';
import { keyByFingerprint } from './key-fingerprint.js';
import { readJsonObject } from './read-json-object.js';
import { readKlingTask } from './read-kling-task.js';
import { readVodTaskDetail } from './read-vod-task-detail.js';

/** Where a completed video's bytes are fetched from, or why they cannot be. */
export type VideoContentSource = { ok: true; url: string; headers: Record<string, string> } | { ok: false; status: 400 | 502; message: string };

/**
 * Pure: the upstream request that yields a completed task's video. OpenAI-style channels serve
 * `{base}/v1/videos/{id}/content[?variant=]` to the key that made the video; Tencent VOD and Kling give a
 * file URL (a temporary CDN address, no auth) in the task's last answer, and only the video itself.
 */
export function videoContentSource(channels: readonly ChannelRecord[], task: TaskRow, variant: string | undefined): VideoContentSource {
  const channel = channels.find((candidate) => candidate.id === task.channel_id);
  const key = channel === undefined ? undefined : keyByFingerprint(channel.keys, task.key_fingerprint);
  if (channel === undefined || key === undefined || task.upstream_id === null) return { ok: false, status: 502, message: 'Failed to fetch video content: the channel that made it is gone.' };
  if (channel.type === 'tencent-vod') {
    if (variant !== undefined && variant !== 'video') return { ok: false, status: 400, message: `Invalid 'variant': this task has only its video.` };
    let detail;
    try {
      detail = readVodTaskDetail(JSON.parse(task.result ?? 'null'));
    } catch {
      detail = undefined;
    }
    const url = detail?.kind === 'task' ? detail.fileUrl : undefined;
    return url === undefined ? { ok: false, status: 502, message: 'Failed to fetch video content: the upstream named no file.' } : { ok: true, url, headers: { accept: '*/*' } };
  }
  if (channel.type === 'kling') {
    if (variant !== undefined && variant !== 'video') return { ok: false, status: 400, message: `Invalid 'variant': this task has only its video.` };
    const url = readKlingTask(readJsonObject(task.result))?.videoUrl;
    return url === undefined ? { ok: false, status: 502, message: 'Failed to fetch video content: the upstream named no file.' } : { ok: true, url, headers: { accept: '*/*' } };
  }
  const query = variant === undefined ? '' : `?variant=${variant}`;
  return { ok: true, url: `${channel.baseUrl}/v1/videos/${encodeURIComponent(task.upstream_id)}/content${query}`, headers: { authorization: `Bearer ${key}`, accept: 'application/binary' } };
}
