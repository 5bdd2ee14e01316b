import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiStream, streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

describe('errors through converted channels', () => {
  it('an upstream 429 with retry-after: the Anthropic client gets the retry-after the SDK schedules its retry on', async () => {
    fixture.upstream.clearQueue();
    for (let i = 0; i < 3; i++) fixture.upstream.enqueue({ status: 429, headers: { 'retry-after': '7' }, json: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } } });
    const response = await fetch(`${fixture.gateway.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': (fixture.anthropic as any).apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: M.chat, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('a Gemini in-band 503 mid-stream reaches the Anthropic client as overloaded_error', async () => {
    fixture.upstream.clearQueue();
    const whole = geminiStream({ text: 'Partial answer here', usage: { input: 5, output: 5 } });
    fixture.upstream.enqueue({ ...whole, sse: [whole.sse![0]!, streamErrorEvent('gemini', 'The model is overloaded.')], delayMs: 20 });
    const response = await fetch(`${fixture.gateway.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': (fixture.anthropic as any).apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: M.gemini, max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    const text = await response.text();
    const errorEvent = text.split('\n\n').find((block) => block.startsWith('event: error'));
    expect(errorEvent).toBeDefined();
    expect(JSON.parse(errorEvent!.split('data: ')[1]!)).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
  });
});

