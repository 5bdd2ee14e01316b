import { describe, expect, it } from 'vitest';
import { formatResponseCancels } from './format-response-cancels.js';

describe('formatResponseCancels', () => {
  it('cancels each response under way by its id (an out-of-band one is cancelled no other way)', () => {
    expect(formatResponseCancels(['resp_a', 'resp_oob']).map((frame) => JSON.parse(frame))).toEqual([
      { type: 'response.cancel', response_id: 'resp_a' },
      { type: 'response.cancel', response_id: 'resp_oob' },
    ]);
  });

  it('sends one cancel without an id for responses whose id was never seen', () => {
    expect(formatResponseCancels([undefined, 'resp_a', undefined])).toEqual(['{"type":"response.cancel"}', '{"type":"response.cancel","response_id":"resp_a"}']);
    expect(formatResponseCancels([])).toEqual([]);
  });
});
