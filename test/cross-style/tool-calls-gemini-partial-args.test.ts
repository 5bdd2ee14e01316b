/**
 * Vertex streamed function-call arguments (`willContinue` + `partialArgs` by JSON path), with nested
 * arrays of objects, strings split over pieces (quotes, backslashes, non-ASCII) and two streamed calls in a
 * row, read by the other clients' SDK accumulators.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { ask, toolStop, type Client } from './tool-wire-helpers.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const frame = (parts: any[], finish?: string) => ({
  data: { candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: finish } : {}), index: 0 }], ...(finish ? { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 } } : {}), modelVersion: 'gemini-3-pro-preview', responseId: 'vtx1' },
});
const pa = (jsonPath: string, value: Record<string, unknown>, willContinue?: boolean) => ({ jsonPath, ...value, ...(willContinue ? { willContinue } : {}) });

describe('Vertex partialArgs', () => {
  it.each(['openai-chat', 'openai-responses', 'anthropic'] as Client[])('%s client: two streamed calls with nested args arrive whole', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue({
      crlf: true,
      sse: [
        frame([{ functionCall: { id: 'v1', name: 'get_weather', willContinue: true } }]),
        frame([{ functionCall: { partialArgs: [pa('$.city', { stringValue: 'Caf' }, true)], willContinue: true } }]),
        frame([{ functionCall: { partialArgs: [pa('$.city', { stringValue: 'é "q" \\ ' }, true)], willContinue: true } }]),
        frame([{ functionCall: { partialArgs: [pa('$.city', { stringValue: '東京' })], willContinue: true } }]),
        frame([{ functionCall: { partialArgs: [pa('$.steps[0].n', { numberValue: 1 }), pa('$.steps[0].ok', { boolValue: true }), pa('$.steps[1].n', { numberValue: 2 }), pa('$.tags[0]', { stringValue: 'a' }), pa('$.tags[1]', { nullValue: null })], willContinue: true } }]),
        frame([{ functionCall: { partialArgs: [pa("$['odd key']", { stringValue: 'x' })] } }]),
        frame([{ functionCall: { id: 'v2', name: 'get_time', willContinue: true } }]),
        frame([{ functionCall: {} }]),
        frame([{ text: '' }], 'STOP'),
      ],
    });
    const seen = await ask(fixture, client, M.gemini3);
    expect(seen.calls).toEqual([
      { id: 'v1', name: 'get_weather', args: { city: 'Café "q" \\ 東京', steps: [{ n: 1, ok: true }, { n: 2 }], tags: ['a', null], 'odd key': 'x' } },
      { id: 'v2', name: 'get_time', args: {} },
    ]);
    expect(seen.stop).toBe(toolStop[client]);
  });
});
