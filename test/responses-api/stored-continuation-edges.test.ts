import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { errorReply } from '../fakes/scripted-vendor-wire.js';
import { modelOf, startBillingFixture, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { storingResponsesUpstream } from './responses-support.js';

/**
 * Edges of the stored-response continuation (docs/behaviour.md "Stored responses"), from its audit: what an
 * answer without usage leaves to reserve, id lengths, the memory being there before the next turn, the
 * pin when its channel is gone, other users' ids in every form. Each upstream stores what it made.
 */
const model = modelOf['openai-responses'];
const run = randomUUID().slice(0, 8);

const storingUpstream = (name: string, answer: Parameters<typeof storingResponsesUpstream>[2]) => storingResponsesUpstream(name, run, answer);

const requestsTo = (upstream: ScriptedUpstream) => upstream.requests.filter((request) => request.path === '/v1/responses').length;
const memoryOf = (fixture: BillingFixture) => fixture.gateway.gateway.services.relay.responses;

describe('what a continuation reserves', () => {
  let fixture: BillingFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('an answer without usage: the remembered context holds its output too (the next turn reads it back)', async () => {
    fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 100_000_000 });
    // A long answer (a chapter), no usage reported (a compatible Responses server).
    const chapter = 'The quick brown fox jumps over the lazy dog. '.repeat(3_000);
    const outputTokens = tokens(chapter);
    expect(outputTokens).toBeGreaterThan(25_000);
    fixture.primary['openai-responses'].setFallback(storingUpstream('primary', () => ({ text: chapter })));
    const first = await fixture.sdk.openai.responses.create({ model, input: 'write a chapter' });
    const remembered = await memoryOf(fixture).recall(first.id);
    expect(remembered, 'the answer is remembered').toBeDefined();
    // Now: only the prompt estimate (a dozen tokens) is remembered; the next turn reads back 30k tokens of output.
    expect(remembered!.contextTokens, 'the output the next turn reads back is part of the context').toBeGreaterThanOrEqual(outputTokens);
  });

  it('a streamed answer without usage: the remembered context holds its output too', async () => {
    fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 100_000_000 });
    const chapter = 'The quick brown fox jumps over the lazy dog. '.repeat(3_000);
    const outputTokens = tokens(chapter);
    fixture.primary['openai-responses'].setFallback(storingUpstream('primary', () => ({ text: chapter })));
    const stream = fixture.sdk.openai.responses.stream({ model, input: 'write a chapter' });
    const first = await stream.finalResponse();
    const remembered = await memoryOf(fixture).recall(first.id);
    expect(remembered).toBeDefined();
    expect(remembered!.contextTokens).toBeGreaterThanOrEqual(outputTokens);
  });
});

describe('memory bounds', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 100_000_000 });
    // A compatible Responses server that ignores `conversation` (answers whatever it is).
    fixture.primary['openai-responses'].setFallback(storingUpstream('primary', () => ({ text: 'ok', usage: { input: 10, output: 2 } })));
  });
  afterAll(async () => fixture?.close());

  it('a client-chosen conversation id of 4 MB is not kept as a key (50,000 of them would be 200 GB)', async () => {
    const huge = `conv_${'x'.repeat(4 * 1024 * 1024)}`;
    const response = await fetch(`${fixture.gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.sdk.openai.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'hi', conversation: huge }),
    });
    // Either refused as OpenAI refuses a malformed id (400), or served without keeping the id: never both kept and served.
    if (response.status === 200) {
      expect(await memoryOf(fixture).recall(huge), 'an id far longer than any upstream id is not remembered').toBeUndefined();
    } else {
      expect(response.status).toBe(400);
    }
  });
});

describe('the memory is there before the next turn (streamed, SDK, many times)', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 100_000_000 });
    fixture.primary['openai-responses'].setFallback(storingUpstream('primary', () => ({ text: 'p', usage: { input: 10, output: 2 } })));
    fixture.fallback!['openai-responses'].setFallback(storingUpstream('fallback', () => ({ text: 'answer from the fallback, with a few words', usage: { input: 10, output: 2 } })));
  });
  afterAll(async () => fixture?.close());

  it('60 streamed turns, each continued the moment the previous stream ends, all on the fallback', async () => {
    const { openai } = fixture.sdk;
    fixture.primary['openai-responses'].enqueue(errorReply('openai-responses', 500, 'primary is down'));
    let previous = (await openai.responses.create({ model, input: 'first' })).id;
    expect(previous).toMatch(/^resp_fallback_/);
    const primaryBefore = requestsTo(fixture.primary['openai-responses']);
    for (let turn = 0; turn < 60; turn += 1) {
      const stream = await openai.responses.create({ model, input: `turn ${turn}`, previous_response_id: previous, stream: true });
      let id: string | undefined;
      for await (const event of stream) if (event.type === 'response.completed') id = event.response.id;
      expect(id).toMatch(/^resp_fallback_/);
      previous = id!;
    }
    expect(requestsTo(fixture.primary['openai-responses'])).toBe(primaryBefore);
  });

  it('raw fetch: the next turn is sent on the byte that completes the stream', async () => {
    fixture.primary['openai-responses'].enqueue(errorReply('openai-responses', 500, 'primary is down'));
    const { openai } = fixture.sdk;
    let previous = (await openai.responses.create({ model, input: 'first' })).id;
    const primaryBefore = requestsTo(fixture.primary['openai-responses']);
    for (let turn = 0; turn < 40; turn += 1) {
      const response = await fetch(`${fixture.gateway.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, input: `turn ${turn}`, previous_response_id: previous, stream: true }),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = '';
      const decoder = new TextDecoder();
      // Stop reading at the completed event's data, without waiting for the end of the body.
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (/event: response\.completed\ndata: .*\n/.test(text)) break;
      }
      void reader.cancel().catch(() => undefined);
      const id = /"id":"(resp_fallback_[^"]+)"/.exec(text)?.[1];
      expect(id).toBeDefined();
      previous = id!;
    }
    expect(requestsTo(fixture.primary['openai-responses'])).toBe(primaryBefore);
  });
});

describe('the pin when the channel that stored the response is gone', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 100_000_000 });
    // The primary answers everything (say it shares the account); the fallback stores.
    fixture.primary['openai-responses'].setFallback(storingUpstream('primary', () => ({ text: 'p', usage: { input: 10, output: 2 } })));
    fixture.fallback!['openai-responses'].setFallback(storingUpstream('fallback', () => ({ text: 'f', usage: { input: 10, output: 2 } })));
  });
  afterAll(async () => fixture?.close());

  async function setChannel(name: string, change: { status?: number; groups?: string }) {
    const { db } = fixture.gateway.gateway.services.database;
    await db.updateTable('channels').set(change).where('name', '=', name).execute();
    await fixture.gateway.gateway.services.catalog.changed();
  }

  for (const [what, change, restore] of [
    ['disabled', { status: 2 }, { status: 1 }],
    ['moved out of the caller group', { groups: '["vip"]' }, { groups: '["default"]' }],
  ] as const) {
    it(`${what}: the continuation is routed as usual (no 5xx, no hang)`, async () => {
      fixture.primary['openai-responses'].enqueue(errorReply('openai-responses', 500, 'primary is down'));
      const first = await fixture.sdk.openai.responses.create({ model, input: 'first' });
      expect(first.id).toMatch(/^resp_fallback_/);
      await setChannel('fallback-openai-responses', change);
      const primaryBefore = requestsTo(fixture.primary['openai-responses']);
      try {
        const response = await fetch(`${fixture.gateway.url}/v1/responses`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fixture.sdk.openai.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, input: 'next', previous_response_id: first.id }),
        });
        // The primary does not hold it: its own 400 previous_response_not_found comes back (normal routing).
        expect(response.status).toBe(400);
        expect(((await response.json()) as any).error.code).toBe('previous_response_not_found');
        expect(requestsTo(fixture.primary['openai-responses'])).toBe(primaryBefore + 1);
      } finally {
        await setChannel('fallback-openai-responses', restore);
      }
    });
  }

  it('deleted: the continuation is routed as usual', async () => {
    fixture.primary['openai-responses'].enqueue(errorReply('openai-responses', 500, 'primary is down'));
    const first = await fixture.sdk.openai.responses.create({ model, input: 'first' });
    expect(first.id).toMatch(/^resp_fallback_/);
    const { db } = fixture.gateway.gateway.services.database;
    await db.deleteFrom('channels').where('name', '=', 'fallback-openai-responses').execute();
    await fixture.gateway.gateway.services.catalog.changed();
    const primaryBefore = requestsTo(fixture.primary['openai-responses']);
    const response = await fetch(`${fixture.gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.sdk.openai.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'next', previous_response_id: first.id }),
    });
    expect(response.status).toBe(400);
    expect(requestsTo(fixture.primary['openai-responses'])).toBe(primaryBefore + 1);
  });
});

describe('other users', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 100_000_000 });
    fixture.primary['openai-responses'].setFallback(storingUpstream('primary', () => ({ text: 'p', usage: { input: 10, output: 2 } })));
  });
  afterAll(async () => fixture?.close());

  const post = (path: string, body: unknown) =>
    fetch(`${fixture.gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${fixture.sdk.openai.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it("another user's response id given as the conversation, as { id, extra }, via compact: 400, no upstream call", async () => {
    const memory = memoryOf(fixture);
    const foreign = `resp_foreign_${run}`;
    const foreignConversation = `conv_foreign_${run}`;
    memory.remember(foreign, { channelId: fixture.channelIds['primary-openai-responses']!, userId: 999_999, contextTokens: 10 });
    memory.remember(foreignConversation, { channelId: fixture.channelIds['primary-openai-responses']!, userId: 999_999, contextTokens: 10 });
    const before = fixture.primary['openai-responses'].requests.length;
    for (const body of [
      { model, input: 'x', conversation: foreign },
      { model, input: 'x', conversation: { id: foreignConversation, metadata: {} } },
      { model, input: 'x', previous_response_id: foreign, conversation: `conv_mine_${run}` },
    ]) {
      const response = await post('/v1/responses', body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    const compact = await post('/v1/responses/compact', { model, previous_response_id: foreign });
    expect(compact.status).toBe(400);
    expect(fixture.primary['openai-responses'].requests.length).toBe(before);
    // The refused request's own conversation was not taken over either.
    expect(await memory.recall(`conv_mine_${run}`)).toBeUndefined();
  });
});
