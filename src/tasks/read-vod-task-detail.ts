import { isRecord } from '../convert/shared/is-record.js';
import { readProgress, type TaskObservation } from './task-status.js';

/** What VOD's `DescribeTaskDetail` says of an AIGC video task (protocols.md §5.3). */
export type VodTaskDetail = { kind: 'error'; code: string; message: string } | { kind: 'task'; observation: TaskObservation; fileUrl: string | undefined };

/**
 * Pure: WAITING → queued, PROCESSING → in_progress, FINISH → success with the main video's `FileUrl` (the
 * first file whose `UsageType` is empty, else the first that is not the cover), ABORTED → failure. FINISH
 * is still a failure when `ErrCode` is not 0, `ErrCodeExt` names an error, or no URL came with it (as the
 * adaptors in protocols.md §5.3 read it). An `Error` in the answer (HTTP 200, as Tencent sends errors) is
 * returned as such; an answer of another shape is undefined.
 */
export function readVodTaskDetail(json: unknown): VodTaskDetail | undefined {
  const response = isRecord(json) && isRecord(json.Response) ? json.Response : undefined;
  if (response === undefined) return undefined;
  if (isRecord(response.Error)) {
    return { kind: 'error', code: String(response.Error.Code ?? 'UnknownError'), message: String(response.Error.Message ?? '') };
  }
  const task = isRecord(response.AigcVideoTask) ? response.AigcVideoTask : {};
  const status = typeof response.Status === 'string' ? response.Status : task.Status;
  const progress = readProgress(task.Progress);
  const withProgress = (observation: TaskObservation): TaskObservation => (progress === undefined ? observation : { ...observation, progress });
  switch (status) {
    case 'WAITING':
      return { kind: 'task', observation: withProgress({ status: 'queued' }), fileUrl: undefined };
    case 'PROCESSING':
      return { kind: 'task', observation: withProgress({ status: 'in_progress' }), fileUrl: undefined };
    case 'ABORTED':
      return { kind: 'task', observation: { status: 'failure', failReason: failReasonOf(task, 'The task was aborted upstream.') }, fileUrl: undefined };
    case 'FINISH': {
      const fileUrl = mainFileUrl(task);
      const errCode = Number(task.ErrCode ?? 0);
      const ext = typeof task.ErrCodeExt === 'string' ? task.ErrCodeExt : '';
      const failed = (Number.isFinite(errCode) && errCode !== 0) || (ext !== '' && ext !== '0' && ext.toLowerCase() !== 'success');
      if (failed) return { kind: 'task', observation: { status: 'failure', failReason: failReasonOf(task, 'The task failed upstream.') }, fileUrl: undefined };
      if (fileUrl === undefined) return { kind: 'task', observation: { status: 'failure', failReason: 'The task finished without a video.' }, fileUrl: undefined };
      return { kind: 'task', observation: { status: 'success', progress: 100 }, fileUrl };
    }
    default:
      return undefined;
  }
}

function mainFileUrl(task: Record<string, unknown>): string | undefined {
  const output = isRecord(task.Output) ? task.Output : {};
  const files = Array.isArray(output.FileInfos) ? output.FileInfos.filter(isRecord) : [];
  const withUrl = files.filter((file) => typeof file.FileUrl === 'string' && file.FileUrl !== '');
  const main = withUrl.find((file) => file.UsageType === undefined || file.UsageType === '') ?? withUrl.find((file) => file.UsageType !== 'image_url');
  return main?.FileUrl as string | undefined;
}

function failReasonOf(task: Record<string, unknown>, fallback: string): string {
  for (const value of [task.Message, task.ErrCodeExt]) if (typeof value === 'string' && value !== '' && value !== '0') return value;
  return fallback;
}
