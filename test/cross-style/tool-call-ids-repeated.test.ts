/**
 * A compatible Chat server that gives two parallel calls the same id AND repeats the id on every fragment
 * of a call (as several compatibles do). The decoder renames the second call on its first fragment; its
 * later fragments, which repeat the wire id, must still join it (they were compared with the new id and each
 * opened a new, nameless call: found by the review of session 24's changes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { ask, chatDeltas, type Client } from './tool-wire-helpers.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => fixture?.close());

const clients: Client[] = ['anthropic', 'openai-responses', 'gemini'];

describe('two parallel Chat calls sharing one id, the id repeated on each fragment', () => {
  it.each(clients)('%s client: two calls, each with its whole arguments, distinct ids', async (client) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(
      chatDeltas(
        [
          { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] },
          { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { arguments: '"Oslo"}' } }] },
          { tool_calls: [{ index: 1, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] },
          { tool_calls: [{ index: 1, id: 'call_0', type: 'function', function: { arguments: '"Rome"}' } }] },
        ],
        'tool_calls',
        { input: 10, output: 10 },
      ),
    );
    const seen = await ask(fixture, client, M.chat);
    expect(seen.calls.map((call) => call.args)).toEqual([{ city: 'Oslo' }, { city: 'Rome' }]);
    expect(seen.calls.map((call) => call.name)).toEqual(['get_weather', 'get_weather']);
    expect(new Set(seen.calls.map((call) => call.id)).size).toBe(2);
  });
});
