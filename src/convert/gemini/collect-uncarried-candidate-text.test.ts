import { describe, expect, it } from 'vitest';
import { collectUncarriedCandidateText } from './collect-uncarried-candidate-text.js';

describe('collectUncarriedCandidateText', () => {
  it('is empty for one candidate or none', () => {
    expect(collectUncarriedCandidateText(undefined)).toBe('');
    expect(collectUncarriedCandidateText([{ content: { role: 'model', parts: [{ text: 'carried' }] } }])).toBe('');
  });

  it('joins the thought, answer and function-call text of every candidate after the first', () => {
    const text = collectUncarriedCandidateText([
      { content: { role: 'model', parts: [{ text: 'carried' }] } },
      { content: { role: 'model', parts: [{ text: 'thinking', thought: true }, { text: ' answer' }] }, index: 1 },
      { content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] }, index: 2 },
      { finishReason: 'STOP', index: 3 },
    ]);
    expect(text).toBe('thinking answerget_weather{"city":"Paris"}');
  });
});
