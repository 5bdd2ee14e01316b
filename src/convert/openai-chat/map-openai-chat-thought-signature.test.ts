import { describe, expect, it } from 'vitest';
import { formatOpenaiChatThoughtSignature, parseOpenaiChatThoughtSignature } from './map-openai-chat-thought-signature.js';

describe('map-openai-chat-thought-signature', () => {
  it("writes a signature where Google's OpenAI-compatible endpoint does, and reads it back", () => {
    const call = { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' }, ...formatOpenaiChatThoughtSignature('CiQBjz1r', 'google') };
    expect(call.extra_content).toEqual({ google: { thought_signature: 'CiQBjz1r' } });
    expect(parseOpenaiChatThoughtSignature(call)).toEqual({ signature: 'CiQBjz1r', issuer: 'google' });
  });

  it("tags another vendor's signature with its issuer, so it goes back only there", () => {
    const call = { id: 'c1', ...formatOpenaiChatThoughtSignature('EqQBCgIY', 'anthropic') };
    expect(call.extra_content).toEqual({ google: { thought_signature: 'signature:anthropic:EqQBCgIY' } });
    expect(parseOpenaiChatThoughtSignature(call)).toEqual({ signature: 'EqQBCgIY', issuer: 'anthropic' });
  });

  it('reads nothing from a call without one, or with a malformed one', () => {
    for (const extra of [undefined, null, 'x', {}, { google: null }, { google: { thought_signature: 3 } }, { google: { thought_signature: '' } }]) {
      expect(parseOpenaiChatThoughtSignature({ id: 'c1', extra_content: extra })).toBeUndefined();
    }
  });
});
