import { describe, expect, it } from 'vitest';
import { newCallIdNonce } from '../shared/new-call-id-nonce.js';
import { generatedCallId } from './generated-call-id.js';

describe('generatedCallId', () => {
  it('is short enough for OpenAI (≤ 40) and tells calls and answers apart, even answers with one id', () => {
    const id = generatedCallId('chatcmpl-CBm2wYx3Kt1N7qk0D9lEZ1Pq2rS4uV', 3, 'n0nce123');
    expect(id.length).toBeLessThanOrEqual(40);
    expect(id).toBe('call_3_n0nce1231N7qk0D9lEZ1Pq2rS4uV');
    expect(generatedCallId('chatcmpl-a', 0, 'n1')).not.toBe(generatedCallId('chatcmpl-a', 1, 'n1'));
    expect(generatedCallId('chatcmpl-a', 0, 'n1')).not.toBe(generatedCallId('chatcmpl-a', 0, 'n2'));
    expect(generatedCallId('', 12345, 'n1')).toBe('call_12345_n1');
  });

  it('nonces are 8 letters and digits and differ', () => {
    const nonces = new Set(Array.from({ length: 100 }, () => newCallIdNonce()));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) expect(nonce).toMatch(/^[a-z0-9]{8}$/);
  });
});
