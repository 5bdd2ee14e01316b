import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type Answer, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { send, timeTool, weatherTool, type ClientStyle, type Conv } from './clients.js';
import { convertedCases, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const idOf: Record<WireStyle, [string, string]> = {
  'openai-chat': ['call_A1', 'call_B2'],
  'openai-responses': ['call_R1', 'call_R2'],
  anthropic: ['toolu_01A', 'toolu_01B'],
  gemini: ['gcall-1', 'gcall-2'],
};

function parallelAnswer(up: WireStyle): Answer {
  const [a, b] = idOf[up];
  return {
    text: 'Checking both.',
    tools: [
      { id: a, name: 'get_weather', args: '{"location":"Paris, FR","unit":"celsius"}' },
      { id: b, name: 'get_time', args: '{"tz":"Europe/Paris"}' },
    ],
    stop: 'tool',
    usage: { input: 50, output: 30 },
  };
}

const expectedStop: Record<ClientStyle, string> = { 'openai-chat': 'tool_calls', anthropic: 'tool_use', 'openai-responses': 'completed', gemini: 'STOP' };

describe('parallel tool calls with arguments split across many deltas reach every client style whole', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(convertedCases())('$client client → $up upstream (stream=$stream)', async ({ up, client, stream }) => {
    fixture.upstream.enqueue(replyFor(up, parallelAnswer(up), stream));
    const conv: Conv = { model: modelOf[up], system: ['Be brief.'], tools: [weatherTool, timeTool], messages: [{ role: 'user', text: 'Weather and time in Paris?' }] };
    const observed = await send(fixture, client, conv, stream);
    expect(observed.text).toBe('Checking both.');
    expect(observed.tools.map((t) => ({ name: t.name, args: t.args }))).toEqual([
      { name: 'get_weather', args: { location: 'Paris, FR', unit: 'celsius' } },
      { name: 'get_time', args: { tz: 'Europe/Paris' } },
    ]);
    const ids = observed.tools.map((t) => t.id);
    if (up !== 'gemini') expect(ids).toEqual(idOf[up]);
    else if (client !== 'gemini') {
      // Gemini 2.5 sends no call ids: the gateway makes distinct ones for clients that need them.
      expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
      expect(new Set(ids).size).toBe(2);
    }
    expect(observed.stop).toBe(expectedStop[client]);
  });
});
