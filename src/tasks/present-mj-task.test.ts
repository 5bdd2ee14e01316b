import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../storage/tasks-repository.js';
import { mjImageUrlOf, presentMjSubmitAnswer, presentMjTask } from './present-mj-task.js';

const publicId = `task_${'A'.repeat(32)}`;
const originId = `task_${'B'.repeat(32)}`;

function row(change: Partial<TaskRow>): TaskRow {
  return {
    id: 1,
    public_id: publicId,
    kind: 'mj',
    request_id: 'r',
    user_id: 1,
    token_id: 1,
    channel_id: 1,
    key_fingerprint: 'f',
    model: 'mj_upscale',
    upstream_model: 'mj_upscale',
    upstream_id: '1700',
    status: 'submitted',
    progress: 0,
    properties: JSON.stringify({ action: 'UPSCALE', state: 's', origin: originId, originUpstreamId: '1600', prompt: 'a fox' }),
    result: JSON.stringify({ code: 1, description: 'Submit success', result: '1700', properties: { discordInstanceId: 'secret', numberOfQueues: 1 } }),
    fail_reason: null,
    quota: 10,
    token_debited: 1,
    user_debited: 1,
    refunded: 0,
    lease_until: 0,
    next_poll_at: 0,
    created_at: 1_000,
    updated_at: 1_000,
    completed_at: null,
    ...change,
  };
}

describe('presentMjSubmitAnswer', () => {
  it('answers the public id with code 1 and only the visible properties', () => {
    expect(presentMjSubmitAnswer(row({}), false)).toEqual({ code: 1, description: 'Submit success', result: publicId, properties: { numberOfQueues: 1 } });
  });

  it('keeps 21 only when asked and the task is not finished', () => {
    const modal = row({ result: JSON.stringify({ code: 21, description: 'Waiting', result: '1700', properties: { remix: true } }) });
    expect(presentMjSubmitAnswer(modal, true)).toMatchObject({ code: 21, result: publicId });
    expect(presentMjSubmitAnswer(modal, false)).toMatchObject({ code: 1 });
    expect(presentMjSubmitAnswer({ ...modal, status: 'success' }, true)).toMatchObject({ code: 1 });
  });

  it('answers a refusal with its code and no id, and an upload with its links', () => {
    expect(presentMjSubmitAnswer(row({ status: 'failure', result: JSON.stringify({ code: 24, description: 'banned', result: null, properties: { bannedWord: 'x' } }) }), false)).toEqual({ code: 24, description: 'banned', result: null, properties: { bannedWord: 'x' } });
    expect(presentMjSubmitAnswer(row({ status: 'success', result: JSON.stringify({ code: 1, description: 'ok', result: ['https://cdn/a.png'] }) }), false)).toMatchObject({ code: 1, result: ['https://cdn/a.png'] });
  });
});

describe('presentMjTask', () => {
  it('shows a task before its first poll from the row', () => {
    expect(presentMjTask(row({}))).toEqual({
      id: publicId,
      action: 'UPSCALE',
      customId: '',
      botType: 'MID_JOURNEY',
      prompt: 'a fox',
      promptEn: '',
      description: '',
      state: 's',
      status: 'SUBMITTED',
      progress: '0%',
      submitTime: 1_000,
      startTime: 0,
      finishTime: 0,
      imageUrl: null,
      failReason: null,
      buttons: [],
      properties: {},
    });
  });

  it('shows what the proxy reported, its ids replaced in the texts, its accounts never', () => {
    const reported = { id: '1700', status: 'SUCCESS', prompt: 'a fox', promptEn: 'a fox', description: '/up 1600 U1', startTime: 1_500, imageUrl: 'https://cdn/1700.png', buttons: [{ customId: 'MJ::JOB::upsample::1::h', label: 'U1', emoji: '', type: 2, style: 2 }], properties: { finalPrompt: 'a fox', discordInstanceId: 'secret', messageId: 'm' } };
    const shown = presentMjTask(row({ status: 'success', progress: 100, completed_at: 2_000, result: JSON.stringify(reported) }));
    expect(shown).toMatchObject({ status: 'SUCCESS', progress: '100%', description: `/up ${originId} U1`, startTime: 1_500, finishTime: 2_000, imageUrl: 'https://cdn/1700.png', properties: { finalPrompt: 'a fox' } });
    expect(shown.buttons).toHaveLength(1);
    expect(JSON.stringify(shown)).not.toContain('secret');
  });

  it('shows MODAL while the proxy waits for one, and a failure with its reason and empty progress', () => {
    expect(presentMjTask(row({ result: JSON.stringify({ id: '1700', status: 'MODAL' }) })).status).toBe('MODAL');
    expect(presentMjTask(row({ status: 'failure', progress: 30, fail_reason: 'banned' }))).toMatchObject({ status: 'FAILURE', progress: '', failReason: 'banned', buttons: [] });
    expect(presentMjTask(row({ status: 'in_progress', progress: 40 }))).toMatchObject({ status: 'IN_PROGRESS', progress: '40%' });
  });
});

describe('mjImageUrlOf', () => {
  it('reads the reported image link, or the one a code-21 answer carried; http(s) only', () => {
    expect(mjImageUrlOf(row({ result: JSON.stringify({ id: '1', imageUrl: 'https://cdn/a.png' }) }))).toBe('https://cdn/a.png');
    expect(mjImageUrlOf(row({ result: JSON.stringify({ code: 21, properties: { imageUrl: 'http://p/b.png' } }) }))).toBe('http://p/b.png');
    expect(mjImageUrlOf(row({ result: JSON.stringify({ id: '1', imageUrl: 'file:///etc/passwd' }) }))).toBeUndefined();
    expect(mjImageUrlOf(row({ result: null }))).toBeUndefined();
  });
});
