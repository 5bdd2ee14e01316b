import { describe, expect, it } from 'vitest';
import { formatGeminiFinishReason, mapGeminiFinishReason } from './map-gemini-finish-reason.js';

describe('mapGeminiFinishReason', () => {
  it('maps Gemini reasons and keeps the raw value', () => {
    expect(mapGeminiFinishReason('STOP', false)).toEqual({ unified: 'stop', raw: 'STOP' });
    expect(mapGeminiFinishReason('STOP', true)).toEqual({ unified: 'tool_calls', raw: 'STOP' });
    expect(mapGeminiFinishReason('MAX_TOKENS', true)).toEqual({ unified: 'length', raw: 'MAX_TOKENS' });
    expect(mapGeminiFinishReason('SAFETY', false)).toEqual({ unified: 'content_filter', raw: 'SAFETY' });
    expect(mapGeminiFinishReason('MALFORMED_FUNCTION_CALL', false)).toEqual({ unified: 'error', raw: 'MALFORMED_FUNCTION_CALL' });
    expect(mapGeminiFinishReason('SOMETHING_NEW', false)).toEqual({ unified: 'other', raw: 'SOMETHING_NEW' });
    expect(mapGeminiFinishReason('constructor', false)).toEqual({ unified: 'other', raw: 'constructor' });
  });
});

describe('formatGeminiFinishReason', () => {
  it('writes Gemini raw values back as they were and maps the others', () => {
    expect(formatGeminiFinishReason({ unified: 'content_filter', raw: 'RECITATION' })).toBe('RECITATION');
    expect(formatGeminiFinishReason({ unified: 'length', raw: 'max_tokens' })).toBe('MAX_TOKENS');
    expect(formatGeminiFinishReason({ unified: 'tool_calls', raw: 'tool_use' })).toBe('STOP');
    expect(formatGeminiFinishReason({ unified: 'content_filter', raw: 'refusal' })).toBe('SAFETY');
    expect(formatGeminiFinishReason({ unified: 'other', raw: undefined })).toBe('OTHER');
  });
});
