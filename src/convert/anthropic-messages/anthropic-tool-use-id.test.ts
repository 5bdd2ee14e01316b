import { describe, expect, it } from 'vitest';
import { anthropicToolUseId } from './anthropic-tool-use-id.js';

describe('anthropicToolUseId', () => {
  it('keeps ids Anthropic takes as they are', () => {
    for (const id of ['toolu_01A09q90qw90lq917835lq9', 'call_abc-123', 'x']) expect(anthropicToolUseId(id)).toBe(id);
  });

  it('maps other ids into the pattern, the same way every time, and keeps ids that differ apart', () => {
    const kimi = anthropicToolUseId('functions.get_weather:0');
    expect(kimi).toMatch(/^functions_get_weather_0_[0-9a-z]+$/);
    expect(anthropicToolUseId('functions.get_weather:0')).toBe(kimi);
    expect(anthropicToolUseId('functions:get_weather.0')).not.toBe(kimi);
    expect(anthropicToolUseId('functions_get_weather_0')).not.toBe(kimi);
    for (const id of ['', 'ü', 'a b', 'call/1']) expect(anthropicToolUseId(id)).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
