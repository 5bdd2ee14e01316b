import { describe, expect, it } from 'vitest';
import { generatedCallId } from './generated-call-id.js';

describe('generatedCallId', () => {
  it('is short enough for OpenAI (≤ 40) and tells calls and answers apart', () => {
    const id = generatedCallId('chatcmpl-CBm2wYx3Kt1N7qk0D9lEZ1Pq2rS4uV', 3);
    expect(id.length).toBeLessThanOrEqual(40);
    expect(id).toBe('call_3_CBm2wYx3Kt1N7qk0D9lEZ1Pq2rS4uV'.slice(0, 7) + 'wYx3Kt1N7qk0D9lEZ1Pq2rS4uV'.slice(-24));
    expect(generatedCallId('chatcmpl-a', 0)).not.toBe(generatedCallId('chatcmpl-b', 0));
    expect(generatedCallId('', 12345)).toBe('call_12345_x');
  });
});
