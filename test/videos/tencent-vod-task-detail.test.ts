/** how DescribeTaskDetail answers are read (pure), and the content source. */
import { describe, expect, it } from 'vitest';
import { readVodTaskDetail } from '../../src/tasks/read-vod-task-detail.js';

const finished = (task: Record<string, unknown>, outer: Record<string, unknown> = { Status: 'FINISH' }) => ({
  Response: { TaskType: 'AigcVideoTask', ...outer, AigcVideoTask: { TaskId: 't', Status: 'FINISH', ErrCode: 0, ErrCodeExt: '', Message: 'SUCCESS', Progress: 100, Output: { FileInfos: [{ FileUrl: 'https://cdn/c.jpg', UsageType: 'image_url' }, { FileUrl: 'https://cdn/v.mp4', UsageType: '' }] }, ...task }, RequestId: 'r' },
});
const statusOf = (json: unknown) => {
  const detail = readVodTaskDetail(json);
  return detail?.kind === 'task' ? detail.observation.status : detail?.kind;
};

describe('(fine?) readVodTaskDetail', () => {
  it('success takes the main video, not the cover', () => {
    expect(readVodTaskDetail(finished({}))).toMatchObject({ kind: 'task', observation: { status: 'success' }, fileUrl: 'https://cdn/v.mp4' });
  });
  it('ErrCode as a string, ErrCodeExt, ABORTED, no URL, cover only: failure', () => {
    expect(statusOf(finished({ ErrCode: '70000' }))).toBe('failure');
    expect(statusOf(finished({ ErrCodeExt: 'RiskControl' }))).toBe('failure');
    expect(statusOf(finished({ ErrCodeExt: 'Success' }))).toBe('success');
    expect(statusOf(finished({}, { Status: 'ABORTED' }))).toBe('failure');
    expect(statusOf(finished({ Output: { FileInfos: [] } }))).toBe('failure');
    expect(statusOf(finished({ Output: { FileInfos: [{ FileUrl: 'https://cdn/c.jpg', UsageType: 'image_url' }] } }))).toBe('failure');
  });
  it('status only in the inner object', () => {
    expect(statusOf(finished({}, {}))).toBe('success');
    expect(statusOf(finished({ Status: 'PROCESSING' }, {}))).toBe('in_progress');
  });
});
