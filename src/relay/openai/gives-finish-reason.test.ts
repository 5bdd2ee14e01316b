import { describe, expect, it } from 'vitest';
import { givesFinishReason } from './gives-finish-reason.js';

describe('givesFinishReason', () => {
  it('is true only for a "finish_reason" key whose value is a string', () => {
    expect(givesFinishReason('{"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}')).toBe(true);
    expect(givesFinishReason('{"choices":[{"delta":{}, "finish_reason" : "length"}]}')).toBe(true);
    expect(givesFinishReason('{"choices":[{"delta":{"content":"Hi"},"finish_reason":null}]}')).toBe(false);
    expect(givesFinishReason('{"choices":[{"delta":{"content":"Hi"}}]}')).toBe(false);
    // Inside the model's text the quotes are escaped: no key.
    expect(givesFinishReason('{"choices":[{"delta":{"content":"the \\"finish_reason\\":\\"stop\\" field"},"finish_reason":null}]}')).toBe(false);
    expect(givesFinishReason('{"choices":[{"delta":{"content":"\\"finish_reason\\""},"finish_reason":"tool_calls"}]}')).toBe(true);
    // Some compatible servers send "" on every chunk: no finish.
    expect(givesFinishReason('{"choices":[{"delta":{"content":"Hi"},"finish_reason":""}]}')).toBe(false);
  });
});
