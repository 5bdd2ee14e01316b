import { describe, expect, it } from 'vitest';
import { mapOpenaiChatFinishReason, mapToOpenaiChatFinishReason } from './map-openai-chat-finish-reason.js';

describe('mapOpenaiChatFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['function_call', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['insufficient_system_resource', 'error'],
    ['eos', 'other'],
  ] as const)('maps %s to %s, keeping the raw value', (raw, unified) => {
    expect(mapOpenaiChatFinishReason(raw)).toEqual({ unified, raw });
  });

  it('maps a missing finish reason to other with no raw value', () => {
    expect(mapOpenaiChatFinishReason(null)).toEqual({ unified: 'other', raw: undefined });
  });
});

describe('mapToOpenaiChatFinishReason', () => {
  it.each([
    [{ unified: 'stop', raw: 'end_turn' }, 'stop'],
    [{ unified: 'length', raw: 'MAX_TOKENS' }, 'length'],
    [{ unified: 'tool_calls', raw: 'tool_use' }, 'tool_calls'],
    [{ unified: 'content_filter', raw: 'refusal' }, 'content_filter'],
  ] as const)('maps %j to %s without warning', (reason, wire) => {
    expect(mapToOpenaiChatFinishReason(reason)).toEqual({ value: wire, warnings: [] });
  });

  it('sends error and other as stop, with a warning naming the raw value', () => {
    expect(mapToOpenaiChatFinishReason({ unified: 'other', raw: 'pause_turn' })).toEqual({
      value: 'stop',
      warnings: ['finish reason other (raw "pause_turn") has no Chat Completions value: sent as "stop"'],
    });
    expect(mapToOpenaiChatFinishReason({ unified: 'error', raw: undefined }).value).toBe('stop');
  });
});
