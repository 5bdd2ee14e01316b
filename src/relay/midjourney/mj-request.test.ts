import { describe, expect, it } from 'vitest';
import { readMjSubmit } from './mj-request.js';

describe('readMjSubmit', () => {
  it('reads an imagine, without the hook and the account filter, keeping the state and bot type', () => {
    const submit = readMjSubmit('imagine', { prompt: 'a cat', state: 's1', botType: 'NIJI_JOURNEY', notifyHook: 'https://x', accountFilter: { remark: 'a' }, base64Array: ['data:image/png;base64,AA'] });
    expect(submit).toEqual({
      route: 'imagine',
      action: 'IMAGINE',
      model: 'mj_imagine',
      prompt: 'a cat',
      upstreamPath: '/mj/submit/imagine',
      upstreamBody: { prompt: 'a cat', state: 's1', botType: 'NIJI_JOURNEY', base64Array: ['data:image/png;base64,AA'] },
      properties: { action: 'IMAGINE', state: 's1', botType: 'NIJI_JOURNEY' },
    });
  });

  it('prices a change by its action and names the task it continues', () => {
    const submit = readMjSubmit('change', { taskId: 'task_a', action: 'variation', index: 3 });
    expect(submit).toMatchObject({ action: 'VARIATION', model: 'mj_variation', origin: { publicId: 'task_a', needs: 'success' }, upstreamBody: { taskId: 'task_a', action: 'VARIATION', index: 3 }, properties: { index: 3 } });
    expect(readMjSubmit('change', { taskId: 'task_a', action: 'REROLL' })).toMatchObject({ model: 'mj_reroll' });
  });

  it('reads simple-change, action, modal and video continuations', () => {
    expect(readMjSubmit('simple-change', { content: 'task_a U1' })).toMatchObject({ action: 'UPSCALE', origin: { publicId: 'task_a', needs: 'success' } });
    expect(readMjSubmit('action', { taskId: 'task_a', customId: 'MJ::Inpaint::1::h::SOLO' })).toMatchObject({ action: 'INPAINT', model: 'mj_inpaint', properties: { customId: 'MJ::Inpaint::1::h::SOLO' } });
    expect(readMjSubmit('modal', { taskId: 'task_a', prompt: 'more' })).toMatchObject({ action: 'MODAL', origin: { publicId: 'task_a', needs: 'open' } });
    expect(readMjSubmit('video', { prompt: 'https://x/a.png move', motion: 'low' }).origin).toBeUndefined();
    expect(readMjSubmit('video', { taskId: 'task_a', index: 2 })).toMatchObject({ origin: { publicId: 'task_a', needs: 'success' }, properties: { index: 2 } });
  });

  it('sends a face swap to /mj/insight-face/swap, priced swap_face', () => {
    expect(readMjSubmit('swap', { sourceBase64: 'a', targetBase64: 'b' })).toMatchObject({ upstreamPath: '/mj/insight-face/swap', model: 'swap_face', action: 'SWAP_FACE' });
  });

  it.each([
    ['imagine', {}, /Missing required parameter: 'prompt'/],
    ['imagine', { prompt: '   ' }, /Missing required parameter: 'prompt'/],
    ['imagine', { prompt: ['a'] }, /'prompt': Expected string, received array/],
    ['imagine', { prompt: 'a', state: 3 }, /'state'/],
    ['imagine', { prompt: 'a', base64Array: [1] }, /'base64Array'/],
    ['imagine', { prompt: 'a', botType: 'X' }, /'botType'/],
    ['change', { taskId: 'task_a', action: 'UPSCALE' }, /index_is_required/],
    ['change', { taskId: 'task_a', action: 'UPSCALE', index: 0 }, /'index'/],
    ['change', { taskId: 'task_a', action: 'UPSCALE', index: 1.5 }, /'index'/],
    ['change', { taskId: 'task_a', action: 'ZOOM', index: 1 }, /'action'/],
    ['change', { action: 'UPSCALE', index: 1 }, /'taskId'/],
    ['simple-change', { content: 'task_a U7' }, /'content'/],
    ['action', { taskId: 'task_a' }, /'customId'/],
    ['action', { taskId: 'task_a', customId: 'MJ::JOB::dance::1::h' }, /unknown_action/],
    ['modal', {}, /'taskId'/],
    ['describe', {}, /'base64'/],
    ['blend', { base64Array: ['a'] }, /2 to 5/],
    ['blend', { base64Array: ['a', 'b', 'c', 'd', 'e', 'f'] }, /2 to 5/],
    ['blend', { base64Array: ['a', 'b'], dimensions: 'WIDE' }, /'dimensions'/],
    ['swap', { sourceBase64: 'a' }, /'targetBase64'/],
    ['upload-discord-images', { base64Array: [] }, /'base64Array'/],
    ['video', {}, /'prompt'/],
    ['video', { prompt: 'a', motion: 'fast' }, /'motion'/],
    ['shorten', {}, /'prompt'/],
    ['edits', {}, /'prompt'/],
  ] as const)('refuses %s %j', (route, body, message) => {
    expect(() => readMjSubmit(route, body as Record<string, unknown>)).toThrow(message);
  });
});
