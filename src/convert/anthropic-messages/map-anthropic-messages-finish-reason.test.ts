import { describe, expect, it } from 'vitest';
import { finishReasonOfTurn, formatAnthropicStopReason, mapAnthropicStopReason } from './map-anthropic-messages-finish-reason.js';

describe('mapAnthropicStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ] as const)('maps %s to %s and keeps the raw value', (raw, unified) => {
    expect(mapAnthropicStopReason(raw)).toEqual({ unified, raw });
  });

  it('maps an unknown stop reason to other, keeping it raw', () => {
    expect(mapAnthropicStopReason('brand_new_reason')).toEqual({ unified: 'other', raw: 'brand_new_reason' });
  });

  it('maps a missing stop reason to other with no raw value', () => {
    expect(mapAnthropicStopReason(null)).toEqual({ unified: 'other', raw: undefined });
  });
});

describe('formatAnthropicStopReason', () => {
  it.each([
    [{ unified: 'stop', raw: 'stop' }, 'end_turn'],
    [{ unified: 'length', raw: 'MAX_TOKENS' }, 'max_tokens'],
    [{ unified: 'tool_calls', raw: 'tool_calls' }, 'tool_use'],
    [{ unified: 'content_filter', raw: 'SAFETY' }, 'refusal'],
  ] as const)('maps %o to %s', (finishReason, expected) => {
    expect(formatAnthropicStopReason(finishReason)).toEqual({ value: expected, warnings: [] });
  });

  it('keeps an Anthropic raw value that agrees with the unified reason', () => {
    expect(formatAnthropicStopReason({ unified: 'stop', raw: 'stop_sequence' }).value).toBe('stop_sequence');
    expect(formatAnthropicStopReason({ unified: 'length', raw: 'model_context_window_exceeded' }).value).toBe('model_context_window_exceeded');
  });

  it('ignores a raw value that disagrees with the unified reason', () => {
    expect(formatAnthropicStopReason({ unified: 'length', raw: 'end_turn' }).value).toBe('max_tokens');
  });

  it('sends end_turn with a warning for error and other', () => {
    const result = formatAnthropicStopReason({ unified: 'error', raw: 'error' });
    expect(result.value).toBe('end_turn');
    expect(result.warnings).toHaveLength(1);
  });
});

describe('finishReasonOfTurn', () => {
  const stop = { unified: 'stop', raw: 'stop' } as const;
  it('says tool_calls for a stopped turn with tool calls, content_filter for one with an OpenAI refusal, tool calls first', () => {
    expect(finishReasonOfTurn(stop, { toolCalls: true, refusal: false })).toEqual({ unified: 'tool_calls', raw: 'stop' });
    expect(finishReasonOfTurn(stop, { toolCalls: false, refusal: true })).toEqual({ unified: 'content_filter', raw: 'stop' });
    expect(finishReasonOfTurn(stop, { toolCalls: true, refusal: true }).unified).toBe('tool_calls');
    expect(formatAnthropicStopReason(finishReasonOfTurn(stop, { toolCalls: false, refusal: true })).value).toBe('refusal');
  });

  it('keeps any reason but stop, and a plain stop', () => {
    expect(finishReasonOfTurn({ unified: 'length', raw: 'length' }, { toolCalls: false, refusal: true })).toEqual({ unified: 'length', raw: 'length' });
    expect(finishReasonOfTurn(stop, { toolCalls: false, refusal: false })).toEqual(stop);
  });
});
