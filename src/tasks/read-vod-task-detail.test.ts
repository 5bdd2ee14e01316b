import { describe, expect, it } from 'vitest';
import { readVodTaskDetail } from './read-vod-task-detail.js';

const answer = (status: string, task: Record<string, unknown> = {}) => ({ Response: { TaskType: 'AigcVideoTask', Status: status, AigcVideoTask: { Status: status, ...task }, RequestId: 'r' } });
const files = { Output: { FileInfos: [{ UsageType: 'image_url', FileUrl: 'https://cdn/c.jpg' }, { UsageType: '', FileUrl: 'https://cdn/v.mp4', FileType: 'mp4' }] } };

describe('readVodTaskDetail (protocols.md §5.3)', () => {
  it('maps WAITING, PROCESSING and ABORTED', () => {
    expect(readVodTaskDetail(answer('WAITING', { Progress: 0 }))).toEqual({ kind: 'task', observation: { status: 'queued', progress: 0 }, fileUrl: undefined });
    expect(readVodTaskDetail(answer('PROCESSING', { Progress: 42 }))).toEqual({ kind: 'task', observation: { status: 'in_progress', progress: 42 }, fileUrl: undefined });
    expect(readVodTaskDetail(answer('ABORTED', { Message: 'cancelled by user' }))).toMatchObject({ observation: { status: 'failure', failReason: 'cancelled by user' } });
  });

  it('takes the main video’s URL, not the cover’s, from a clean FINISH', () => {
    expect(readVodTaskDetail(answer('FINISH', { ErrCode: 0, ErrCodeExt: '', Progress: 100, ...files }))).toEqual({ kind: 'task', observation: { status: 'success', progress: 100 }, fileUrl: 'https://cdn/v.mp4' });
  });

  it('reads a FINISH with an error code, an error text, or no URL as a failure', () => {
    expect(readVodTaskDetail(answer('FINISH', { ErrCode: 10_001, Message: 'Risk control', ...files }))).toMatchObject({ observation: { status: 'failure', failReason: 'Risk control' } });
    expect(readVodTaskDetail(answer('FINISH', { ErrCode: 0, ErrCodeExt: 'InvalidImage', ...files }))).toMatchObject({ observation: { status: 'failure', failReason: 'InvalidImage' } });
    expect(readVodTaskDetail(answer('FINISH', { ErrCode: 0, ErrCodeExt: 'success', ...files }))).toMatchObject({ observation: { status: 'success' } });
    expect(readVodTaskDetail(answer('FINISH', { ErrCode: 0, Output: { FileInfos: [] } }))).toMatchObject({ observation: { status: 'failure', failReason: 'The task finished without a video.' } });
  });

  it('returns Tencent’s in-band error, and nothing for other shapes', () => {
    expect(readVodTaskDetail({ Response: { Error: { Code: 'ResourceNotFound.TaskNotExist', Message: 'no such task' }, RequestId: 'r' } })).toEqual({ kind: 'error', code: 'ResourceNotFound.TaskNotExist', message: 'no such task' });
    expect(readVodTaskDetail({ id: 'x' })).toBeUndefined();
    expect(readVodTaskDetail(answer('SOMETHING'))).toBeUndefined();
  });
});
