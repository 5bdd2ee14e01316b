import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { callerKey, expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, J, parseSse } from '../responses-api/responses-support.js';

/**
 * From the review of this session's changes. A Responses upstream that fails before content reports it with `response.failed` (error, usage, finish in
 * ONE decoder push). The error part makes the attempt fail over, but the finish part that follows in the
 * same push releases the held opening to the client first: the client then sees channel 1's opening and
 * channel 2's answer in one body.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, fallbacks: true });
});
afterAll(async () => fixture?.close());

const failedScript = () => {
  const r = (status: string, extra: Record<string, unknown> = {}) => ({ id: 'resp_p', object: 'response', created_at: 1, status, model: 'x', output: [], error: null, incomplete_details: null, usage: null, ...extra });
  return {
    sse: [
      { event: 'response.created', data: { type: 'response.created', sequence_number: 0, response: r('in_progress') } },
      { event: 'response.in_progress', data: { type: 'response.in_progress', sequence_number: 1, response: r('in_progress') } },
      { event: 'response.failed', data: { type: 'response.failed', sequence_number: 2, response: r('failed', { error: { code: 'server_error', message: 'Overloaded' }, usage: { input_tokens: 10, output_tokens: 0, total_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } }) } },
    ],
  };
};

describe('response.failed before any content', () => {
  it('pass-through Responses: the client gets only the fallback stream (one response.created, no failure)', async () => {
    fixture.primary['openai-responses'].enqueue(failedScript() as any);
    fixture.fallback!['openai-responses'].enqueue(replyFor('openai-responses', { text: 'From fallback', usage: { input: 10, output: 3 } }, true));
    const { result, charged } = await booked(fixture, async () => {
      const response = await fetch(`${fixture.gateway.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: J({ model: modelOf['openai-responses'], input: 'Hi', stream: true }) });
      return { status: response.status, attempts: response.headers.get('x-relay-attempts'), channel: response.headers.get('x-relay-channel-id'), text: await response.text() };
    });
    // The answer came from the second attempt (the fallback channel): its headers must say so.
    expect({ attempts: result!.attempts, channel: result!.channel }).toEqual({ attempts: '2', channel: String(fixture.channelIds['fallback-openai-responses']) });
    const events = parseSse(result!.text);
    const types = events.map((e: any) => e.data.type);
    expect(types.filter((t: string) => t === 'response.created').length, types.join(' ')).toBe(1);
    expect(types.join(' ')).not.toContain('failed');
    expect(charged).toBe(expectedCharge({ input: 10, output: 3 }));
  });

  it('converted (Chat client, Responses upstream): the client gets only the fallback stream', async () => {
    fixture.primary['openai-responses'].enqueue(failedScript() as any);
    fixture.fallback!['openai-responses'].enqueue(replyFor('openai-responses', { text: 'From fallback', usage: { input: 10, output: 3 } }, true));
    const { result } = await booked(fixture, async () => {
      const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: J({ model: modelOf['openai-responses'], messages: [{ role: 'user', content: 'Hi' }], stream: true }) });
      return { status: response.status, text: await response.text() };
    });
    const text = result!.text;
    const finishes = (text.match(/"finish_reason":"/g) ?? []).length;
    expect(text).toContain('From');
    expect(finishes, text).toBe(1);
  });
});

describe('response.failed before any content on every channel', () => {
  it.each([
    ['pass-through Responses', '/v1/responses', () => J({ model: modelOf['openai-responses'], input: 'Hi', stream: true })],
    ['converted Chat client', '/v1/chat/completions', () => J({ model: modelOf['openai-responses'], messages: [{ role: 'user', content: 'Hi' }], stream: true })],
  ])('%s: the client gets an answer that ends (an error status or a closed stream), not a hung 200', async (_name, path, body) => {
    fixture.primary['openai-responses'].enqueue(failedScript() as any);
    fixture.fallback!['openai-responses'].enqueue(failedScript() as any);
    const outcome = await (async () => {
      try {
        const response = await fetch(`${fixture.gateway.url}${path}`, { method: 'POST', signal: AbortSignal.timeout(4000), headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: body() });
        const text = await response.text();
        return { status: response.status, ended: true, text: text.slice(0, 300) };
      } catch (error) {
        return { status: -1, ended: false, text: String(error) };
      }
    })();
    expect(outcome.ended, JSON.stringify(outcome)).toBe(true);
  });
});

describe('Chat upstream: an in-band error chunk then [DONE] (one read) on every channel', () => {
  it('converted Anthropic client: the client gets an answer that ends, not a hung 200', async () => {
    const raw = () => ({ raw: [`data: ${JSON.stringify({ error: { message: 'Overloaded', type: 'server_error', param: null, code: null } })}\n\ndata: [DONE]\n\n`] });
    fixture.primary['openai-chat'].enqueue(raw() as any);
    fixture.fallback!['openai-chat'].enqueue(raw() as any);
    const outcome = await (async () => {
      try {
        const response = await fetch(`${fixture.gateway.url}/v1/messages`, { method: 'POST', signal: AbortSignal.timeout(4000), headers: { 'x-api-key': callerKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: J({ model: modelOf['openai-chat'], max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Hi' }] }) });
        return { status: response.status, ended: true, text: (await response.text()).slice(0, 300) };
      } catch (error) {
        return { status: -1, ended: false, text: String(error) };
      }
    })();
    expect(outcome.ended, JSON.stringify(outcome)).toBe(true);
  });
});
