import { describe, expect, it } from 'vitest';
import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import { formatGeminiModelParts } from './format-gemini-model-parts.js';
import { formatGeminiOpaque, formatGeminiThoughtSignature, parseGeminiThoughtSignature } from './map-gemini-thought-signature.js';
import { parseGeminiModelParts } from './parse-gemini-model-parts.js';

describe('map-gemini-thought-signature', () => {
  it("writes Gemini's signatures as they are and other vendors' data behind a tag naming kind and issuer, and reads each back", () => {
    expect(formatGeminiThoughtSignature({ text: '', signature: 'CiQBjz1rX', issuer: 'google' }, [])).toBe('CiQBjz1rX');
    expect(parseGeminiThoughtSignature('CiQBjz1rX')).toEqual({ kind: 'signature', value: 'CiQBjz1rX', issuer: 'google' });
    const redacted = formatGeminiThoughtSignature({ text: '', redactedData: 'EmwKAhgB/+=', issuer: 'anthropic' }, []);
    expect(redacted).toBe('redacted:anthropic:EmwKAhgB/+=');
    expect(parseGeminiThoughtSignature(redacted!)).toEqual({ kind: 'redacted', value: 'EmwKAhgB/+=', issuer: 'anthropic' });
    const claude = formatGeminiThoughtSignature({ text: '', signature: 'EqQBCgIY', issuer: 'anthropic' }, []);
    expect(claude).toBe('signature:anthropic:EqQBCgIY');
    expect(parseGeminiThoughtSignature(claude!)).toEqual({ kind: 'signature', value: 'EqQBCgIY', issuer: 'anthropic' });
    expect(parseGeminiThoughtSignature(formatGeminiOpaque({ kind: 'redacted', value: 'gAAAAABenc1', issuer: 'openai' }))).toEqual({ kind: 'redacted', value: 'gAAAAABenc1', issuer: 'openai' });
  });

  it('reads redacted data given out before issuers were tagged: a Fernet token is OpenAI\'s, anything else Anthropic\'s', () => {
    expect(parseGeminiThoughtSignature('redacted:gAAAAABenc1')).toEqual({ kind: 'redacted', value: 'gAAAAABenc1', issuer: 'openai' });
    expect(parseGeminiThoughtSignature('redacted:EmwKAhgB')).toEqual({ kind: 'redacted', value: 'EmwKAhgB', issuer: 'anthropic' });
  });

  it('is undefined without opaque data, and keeps the redacted data of a part with both, with a warning', () => {
    expect(formatGeminiThoughtSignature({ text: '' }, [])).toBeUndefined();
    const warnings: string[] = [];
    expect(formatGeminiThoughtSignature({ text: '', signature: 's', redactedData: 'r', issuer: 'anthropic' }, warnings)).toBe('redacted:anthropic:r');
    expect(warnings).toEqual(['a reasoning part with both a signature and redacted data keeps only the redacted data']);
  });

  describe("Anthropic thinking handed to a Gemini client and back", () => {
    const thinking = 'The user wants the weather in Paris. I should call get_weather.';
    const turn: CanonicalAssistantPart[] = [
      { type: 'reasoning', text: thinking, signature: 'EqQBCgIY', issuer: 'anthropic' },
      { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"location":"Paris"}' },
    ];
    const replay = (parts: Record<string, unknown>[]) => parseGeminiModelParts(parts, () => 'call', []);

    it('comes back as issued whether the client had the thought text, changed it, or never got it', () => {
      const withThoughts = formatGeminiModelParts(turn, [], { destination: 'client' });
      expect(withThoughts[0]).toEqual({ text: thinking, thought: true });
      expect(replay(withThoughts)).toEqual(turn);
      // Streamed thoughts merged differently, whitespace trimmed: the text Anthropic signed wins.
      expect(replay([{ text: `${thinking.slice(0, 20)} ${thinking.slice(20)} `, thought: true }, withThoughts[1]!])).toEqual(turn);
      const withoutThoughts = formatGeminiModelParts(turn, [], { destination: 'client', omitThoughtText: true });
      expect(withoutThoughts).toEqual([withThoughts[1]]);
      expect(replay(withoutThoughts)).toEqual(turn);
    });

    it("keeps a Gemini signature's replayed thought text (Google does not verify it)", () => {
      const gemini: CanonicalAssistantPart[] = [{ type: 'reasoning', text: thinking, signature: 'CiQB', issuer: 'google' }, turn[1]!];
      const parts = formatGeminiModelParts(gemini, [], { destination: 'client' });
      expect(parts[1]).toMatchObject({ thoughtSignature: 'CiQB' });
      expect(replay([{ text: 'edited', thought: true }, parts[1]!])).toEqual([{ type: 'reasoning', text: 'edited', signature: 'CiQB', issuer: 'google' }, turn[1]]);
    });
  });
});
