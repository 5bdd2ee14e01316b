import { describe, expect, it } from 'vitest';
import type { OwnTaskRow } from '../storage/tasks-repository.js';
import { presentOwnTask } from './present-own-task.js';

const publicId = `task_${'A'.repeat(32)}`;
const originId = `task_${'B'.repeat(32)}`;

function row(change: Partial<OwnTaskRow>): OwnTaskRow {
  return {
    public_id: publicId,
    kind: 'video',
    token_id: 7,
    model: 'sora-2',
    upstream_id: 'video_upstream_123',
    status: 'in_progress',
    progress: 40,
    properties: JSON.stringify({ seconds: 4, price_names: [], billed_seconds: 4 }),
    fail_reason: null,
    quota: 200_000,
    refunded: 0,
    created_at: 1_000,
    updated_at: 2_000,
    completed_at: null,
    ...change,
  };
}

describe('presentOwnTask', () => {
  it('shows a running video task by its public id, with its charge, and nothing of the upstream', () => {
    const shown = presentOwnTask(row({}));
    expect(shown).toEqual({
      task_id: publicId,
      kind: 'video',
      action: 'GENERATE',
      origin_task_id: null,
      token_id: 7,
      model: 'sora-2',
      status: 'IN_PROGRESS',
      progress: 40,
      quota: 200_000,
      refunded: false,
      fail_reason: null,
      created_at: 1_000,
      updated_at: 2_000,
      completed_at: null,
    });
    expect(JSON.stringify(shown)).not.toContain('video_upstream_123');
  });

  it('shows a failed Midjourney action with its reason, the upstream ids in it as public ones, and its refund', () => {
    const shown = presentOwnTask(
      row({
        kind: 'mj',
        model: 'mj_upscale',
        upstream_id: '1700',
        status: 'failure',
        properties: JSON.stringify({ action: 'UPSCALE', origin: originId, originUpstreamId: '1600' }),
        fail_reason: 'task 1700 of 1600 was banned',
        refunded: 1,
        completed_at: 3_000,
      }),
    );
    expect(shown).toMatchObject({ kind: 'mj', action: 'UPSCALE', origin_task_id: originId, status: 'FAILURE', refunded: true, completed_at: 3_000 });
    expect(shown.fail_reason).toBe(`task ${publicId} of ${originId} was banned`);
    expect(JSON.stringify(shown)).not.toContain('1600');
  });

  it('names a remix and its origin, a Suno action, and shows a success at 100 %', () => {
    expect(presentOwnTask(row({ properties: JSON.stringify({ seconds: 4, remixed_from: originId }) }))).toMatchObject({ action: 'REMIX', origin_task_id: originId });
    expect(presentOwnTask(row({ kind: 'suno', status: 'success', progress: 0, properties: JSON.stringify({ action: 'MUSIC' }) }))).toMatchObject({ action: 'MUSIC', status: 'SUCCESS', progress: 100 });
  });

  it('shows no refund for a task failed in its submit answer (never charged), and no charge before the settle', () => {
    expect(presentOwnTask(row({ status: 'failure', quota: 0, refunded: 1 }))).toMatchObject({ quota: 0, refunded: false, fail_reason: 'The task failed.' });
    expect(presentOwnTask(row({ status: 'not_start', quota: null }))).toMatchObject({ status: 'NOT_START', quota: null, refunded: false });
  });
});
