import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { estimatedTokensPerImage } from '../count-tokens.js';
import { collectCanonicalPromptText } from './collect-canonical-prompt-text.js';

describe('collectCanonicalPromptText', () => {
  it('counts the images of tool results as the images of user turns (a Chat upstream gets them in a user message)', () => {
    const image = { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } } as const;
    const request: CanonicalRequest = {
      model: 'm',
      system: [],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Show the radar' }, image] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'radar', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: [{ type: 'text', text: 'radar:' }, image, image] }] },
      ],
      tools: [],
      stream: false,
    };
    const prompt = collectCanonicalPromptText(request);
    expect(prompt.imageTokens).toBe(3 * estimatedTokensPerImage);
    expect(prompt.texts[0]).toContain('radar:');
  });
});
