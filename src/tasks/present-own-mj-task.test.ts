import { describe, expect, it } from 'vitest';
import type { OwnMjTaskRow } from '../storage/tasks-repository.js';
import { presentOwnMjTask } from './present-own-mj-task.js';

const publicId = `task_${'C'.repeat(32)}`;
const originId = `task_${'D'.repeat(32)}`;

function row(change: Partial<OwnMjTaskRow>): OwnMjTaskRow {
  return {
    public_id: publicId,
    upstream_id: '1800',
    status: 'submitted',
    progress: 0,
    properties: JSON.stringify({ action: 'UPSCALE', state: 'mine', origin: originId, originUpstreamId: '1600', prompt: 'a fox' }),
    result: JSON.stringify({ code: 1, description: 'Submit success', result: '1800', properties: { discordInstanceId: 'secret', finalPrompt: 'a fox' } }),
    fail_reason: null,
    quota: null,
    created_at: 1_000,
    completed_at: null,
    ...change,
  };
}

describe('presentOwnMjTask', () => {
  it('shows a task just submitted by its public id, uncharged as 0, with nothing made yet', () => {
    expect(presentOwnMjTask(row({}))).toEqual({
      id: publicId,
      mj_id: publicId,
      action: 'UPSCALE',
      prompt: 'a fox',
      prompt_en: '',
      description: '',
      state: 'mine',
      status: 'SUBMITTED',
      progress: '0%',
      image_url: '',
      video_url: '',
      video_urls: '',
      fail_reason: '',
      submit_time: 1_000,
      start_time: 0,
      finish_time: 0,
      quota: 0,
      buttons: '[]',
      properties: JSON.stringify({ finalPrompt: 'a fox' }),
    });
  });

  it('shows a finished task with the gateway\'s image link, the buttons as JSON text and the proxy\'s ids as public ones', () => {
    const reported = {
      id: '1800',
      status: 'SUCCESS',
      promptEn: 'a fox',
      description: '/up 1600 U1 (job 1800)',
      startTime: 1_500,
      imageUrl: 'http://10.0.0.7:8080/attachments/1800.png',
      videoUrls: [{ url: 'https://cdn.example/v.mp4' }],
      buttons: [{ customId: 'MJ::JOB::upsample::1::h', label: 'U1', extra: 'x' }],
      properties: { finalPrompt: 'a fox', discordChannelId: 'secret' },
    };
    const shown = presentOwnMjTask(row({ status: 'success', progress: 100, quota: 7, completed_at: 2_000, result: JSON.stringify(reported) }));
    expect(shown).toMatchObject({
      status: 'SUCCESS',
      progress: '100%',
      prompt_en: 'a fox',
      description: `/up ${originId} U1 (job ${publicId})`,
      image_url: `/mj/image/${publicId}`,
      video_urls: JSON.stringify([{ url: 'https://cdn.example/v.mp4' }]),
      start_time: 1_500,
      finish_time: 2_000,
      quota: 7,
      properties: JSON.stringify({ finalPrompt: 'a fox' }),
    });
    expect(JSON.parse(shown.buttons as string)).toEqual([{ customId: 'MJ::JOB::upsample::1::h', emoji: '', label: 'U1', type: 2, style: 2 }]);
    expect(JSON.stringify(shown)).not.toContain('10.0.0.7');
    expect(JSON.stringify(shown)).not.toContain('secret');
  });

  it('shows a failure at 100 % with its reason, the proxy\'s id in it shown as the public one, and no image', () => {
    const shown = presentOwnMjTask(row({ status: 'failure', progress: 30, quota: 7, fail_reason: 'job 1800 banned', result: JSON.stringify({ id: '1800', status: 'FAILURE', imageUrl: 'https://cdn/x.png' }) }));
    expect(shown).toMatchObject({ status: 'FAILURE', progress: '100%', fail_reason: `job ${publicId} banned`, buttons: '[]' });
    // A link the proxy left on a failed task is still relayed by /mj/image (as the fetch shows it).
    expect(shown.image_url).toBe(`/mj/image/${publicId}`);
  });
});
