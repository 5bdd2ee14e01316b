import { describe, expect, it } from 'vitest';
import { boundTaskAnswer, maxTaskAnswerChars } from './bound-task-answer.js';

describe('boundTaskAnswer', () => {
  it('keeps an answer of ordinary size as it came', () => {
    const text = JSON.stringify({ id: 'video_1', status: 'completed', note: 'y'.repeat(40_000) });
    expect(boundTaskAnswer(text)).toBe(text);
  });
  it('cuts the long texts of a large answer and keeps the rest', () => {
    const kept = JSON.parse(boundTaskAnswer(JSON.stringify({ id: 'video_1', status: 'failed', error: { message: 'x'.repeat(2_000_000) }, b64_json: 'A'.repeat(300_000) }))) as Record<string, unknown>;
    expect(kept).toMatchObject({ id: 'video_1', status: 'failed', b64_json: '[omitted]' });
    expect(String((kept.error as { message: string }).message)).toMatch(/^x{16384}… \[1983616 characters cut\]$/);
  });
  it('keeps a placeholder for an answer still too large, or not JSON', () => {
    const many = JSON.stringify(Array.from({ length: 100_000 }, (_, index) => ({ id: index, url: `https://cdn.example/${index}` })));
    for (const text of [many, 'z'.repeat(maxTaskAnswerChars + 1)]) {
      const kept = boundTaskAnswer(text);
      expect(kept.length).toBeLessThan(200);
      expect(JSON.parse(kept)).toEqual({ omitted: `the upstream's answer (${text.length} characters) was too large to keep` });
    }
  });
});
