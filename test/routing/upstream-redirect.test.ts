/**
 * An upstream that answers 3xx (a channel's base_url written http:// that the vendor moves to https://, a
 * moved endpoint) delivered nothing: the gateway follows no redirect (docs/behaviour.md "Routing and
 * failover"). The attempt fails like a 5xx — another channel is tried, the channel is held to it (cooldown),
 * nothing is relayed or charged for it — and a client no channel served gets a 502 naming the redirect.
 * Clients are the official SDKs: Chat through `openai`, the Anthropic pass-through through `@anthropic-ai/sdk`.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplyScript } from '../fakes/scripted-upstream.js';
import { anthropicWhole, chatWhole } from '../fakes/scripted-vendor-wire.js';
import { channel, okAnswer, startFixture, userKey, type Fixture } from './routing-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** What alice-key has spent, once everything settled. */
async function spent(f: Fixture): Promise<number> {
  await f.gateway.settled();
  const row = await f.gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'alice-key').executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

/** A redirect whose body looks like a costly answer: were it relayed or metered, the charge would show it. */
function redirect(status: number, answer: ReplyScript): ReplyScript {
  const body = typeof answer === 'function' ? undefined : answer.json;
  return { status, headers: { location: 'https://api.example.com/v1/moved?key=secret-in-location' }, json: body };
}
const costly = { text: 'relayed redirect body', usage: { input: 900_000, output: 900_000 } };

const chatChannels = (urls: string[]) => [channel('a', urls[0]!, { priority: 10 }), channel('b', urls[1]!)];
const anthropicChannels = (urls: string[]) => [channel('a', urls[0]!, { type: 'anthropic', models: ['claude-x'], priority: 10 }), channel('b', urls[1]!, { type: 'anthropic', models: ['claude-x'] })];

describe('an upstream redirect (Chat, openai SDK)', () => {
  const ask = (f: Fixture) => new OpenAI({ apiKey: userKey, baseURL: `${f.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 });

  for (const status of [301, 302, 307, 308]) {
    it(`a ${status} fails over to the next channel, which alone is charged`, async () => {
      fx = await startFixture({ upstreams: 2, channels: chatChannels, fallback: [chatWhole(okAnswer), chatWhole(okAnswer)] });
      // The price of the same answer served straight away, by the first channel.
      let before = await spent(fx);
      await ask(fx);
      const plain = (await spent(fx)) - before;
      expect(plain).toBeGreaterThan(0);

      fx.ups[0]!.enqueue(redirect(status, chatWhole(costly)));
      before = await spent(fx);
      const { data, response } = await ask(fx).withResponse();
      expect(data.choices[0]?.message.content).toBe(okAnswer.text);
      expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
      expect(response.headers.get('x-relay-attempts')).toBe('2');
      expect((await spent(fx)) - before).toBe(plain);
    });
  }

  it('when every channel redirects: a 502 naming the redirect, no upstream body, nothing charged', async () => {
    fx = await startFixture({ upstreams: 2, channels: chatChannels, fallback: [redirect(301, chatWhole(costly)), redirect(302, chatWhole(costly))] });
    const before = await spent(fx);
    const error = (await ask(fx).catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/The upstream answered a redirect \(HTTP 30[12]\)/);
    expect(error.message).not.toContain('secret-in-location');
    expect(fx.ups.map((up) => up.requests.length)).toEqual([1, 1]);
    expect((await spent(fx)) - before).toBe(0);
    await fx.gateway.settled();
    const log = await fx.gateway.gateway.services.database.db.selectFrom('logs').select(['status', 'quota']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    expect(log).toMatchObject({ status: 502, quota: 0 });
  });

  it('a streamed request redirected: failover, the stream comes from the next channel', async () => {
    fx = await startFixture({ upstreams: 2, channels: chatChannels });
    fx.ups[0]!.enqueue({ status: 301, headers: { location: 'https://elsewhere.example.com/' }, raw: ['data: {"not":"relayed"}\n\n'] });
    const stream = await new OpenAI({ apiKey: userKey, baseURL: `${fx.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(okAnswer.text);
    expect(fx.ups[1]!.requests).toHaveLength(1);
  });

  it('redirects count toward the channel cooldown (a misconfigured base_url answers every request so)', async () => {
    fx = await startFixture({ upstreams: 2, channels: chatChannels });
    fx.ups[0]!.setFallback(redirect(301, chatWhole(costly)));
    for (let i = 0; i < 3; i += 1) expect((await ask(fx).withResponse()).response.status).toBe(200);
    expect(fx.ups[0]!.requests).toHaveLength(3);
    await ask(fx);
    expect(fx.ups[0]!.requests).toHaveLength(3);
  });
});

describe('an upstream redirect (Anthropic pass-through, @anthropic-ai/sdk)', () => {
  const ask = (f: Fixture) => new Anthropic({ apiKey: userKey, baseURL: f.url, maxRetries: 0 }).messages.create({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });

  it('a 301 fails over to the next channel, which alone is charged', async () => {
    fx = await startFixture({ upstreams: 2, channels: anthropicChannels, fallback: [anthropicWhole(okAnswer), anthropicWhole(okAnswer)] });
    let before = await spent(fx);
    await ask(fx);
    const plain = (await spent(fx)) - before;
    expect(plain).toBeGreaterThan(0);

    fx.ups[0]!.enqueue(redirect(301, anthropicWhole(costly)));
    before = await spent(fx);
    const { data, response } = await ask(fx).withResponse();
    expect(data.content[0]).toMatchObject({ type: 'text', text: okAnswer.text });
    expect(response.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('b')));
    expect((await spent(fx)) - before).toBe(plain);
  });

  it('when every channel redirects: a 502 in the Anthropic envelope naming the redirect, nothing charged', async () => {
    fx = await startFixture({ upstreams: 2, channels: anthropicChannels, fallback: [redirect(308, anthropicWhole(costly)), redirect(307, anthropicWhole(costly))] });
    const before = await spent(fx);
    const error = (await ask(fx).catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.status).toBe(502);
    expect((error.error as { type?: string } | undefined)?.type).toBe('error');
    expect(error.message).toMatch(/The upstream answered a redirect \(HTTP 30[78]\)/);
    expect(fx.ups.map((up) => up.requests.length)).toEqual([1, 1]);
    expect((await spent(fx)) - before).toBe(0);
  });
});
