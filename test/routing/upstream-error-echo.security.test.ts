import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedRequest } from '../fakes/scripted-upstream.js';
import { channel, okReply, startFixture, userKey, type Fixture } from './routing-fixture.js';

/**
 * A client cannot disable channels by choosing the text of an upstream's error. OpenAI answers an unknown
 * enum value with a 400 that quotes the value the client sent:
 *   {"error":{"message":"Invalid value: 'xyz'. Supported values are: 'low', 'medium', and 'high'.",
 *             "type":"invalid_request_error","param":"reasoning_effort","code":"invalid_value"}}
 * and the gateway passes `reasoning_effort` through unchecked. Whatever key or account phrase the quoted
 * value holds, the 400 is the request's fault: back to the client, no other channel, nothing disabled.
 */
let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

function openaiEcho(request: ScriptedRequest) {
  const body = request.body as { reasoning_effort?: string };
  if (typeof body.reasoning_effort === 'string' && !['low', 'medium', 'high'].includes(body.reasoning_effort)) {
    return { status: 400, json: { error: { message: `Invalid value: '${body.reasoning_effort}'. Supported values are: 'low', 'medium', and 'high'.`, type: 'invalid_request_error', param: 'reasoning_effort', code: 'invalid_value' } } };
  }
  return (okReply() as (r: ScriptedRequest) => any)(request);
}

async function statusOf(f: Fixture, name: string) {
  const got = await f.admin('GET', `/channels/${f.idOf(name)}`);
  return got.json.data as { status: string };
}

describe('a client-chosen string in an upstream 400 message', () => {
  for (const phrase of ['incorrect api key', 'you exceeded your current quota']) {
    it(`reasoning_effort "${phrase}": the 400 goes back to the client, no other channel is tried, no channel is disabled`, async () => {
      fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)], fallback: [openaiEcho, openaiEcho] });
      const client = new OpenAI({ apiKey: userKey, baseURL: `${fx.url}/v1`, maxRetries: 0 });
      const error = (await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: phrase as any }).catch((e: unknown) => e)) as any;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      // The request's own fault: straight back, as any 400.
      expect(error.status).toBe(400);
      expect.soft(fx.ups[1]!.requests).toHaveLength(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect.soft((await statusOf(fx, 'a')).status).toBe('enabled');
      expect.soft((await statusOf(fx, 'b')).status).toBe('enabled');
      // And the channel still serves the next (valid) request.
      const next = await fx.chat();
      expect.soft(next.status).toBe(200);
      expect(next.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
    });
  }
});
