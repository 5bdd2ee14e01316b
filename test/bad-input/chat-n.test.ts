/**
 * POST /v1/chat/completions with `n` of the wrong type or range. The chat schema
 * (src/convert/openai-chat/openai-chat-request-schema.ts) says `n` is a positive integer, and
 * docs/behaviour.md says the hand check on the hot path refuses "the same fields" as that schema. Bar: 400
 * naming `n` in the OpenAI envelope, no upstream call, nothing charged. Before the fix (the bad-input audit): the passthrough sent `n: "2"`
 * upstream (reserved as one choice, run-text-relay.ts reservedOutputTokens) and charges the answer.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, keys, send, startTaskRoutesFixture, withoutCharge, type TaskRoutesFixture } from './task-routes-fixture.js';

let f: TaskRoutesFixture;
beforeAll(async () => {
  f = await startTaskRoutesFixture();
});
afterAll(async () => {
  await f?.close();
});

const messages = [{ role: 'user', content: 'hi' }];

describe('chat n is checked before admission', () => {
  it.each([['"2"', '2'], ['1.5', 1.5], ['0', 0], ['-1', -1], ['true', true], ['129 (past OpenAI\'s 128)', 129]])('n: %s → 400 naming n, no upstream call, no charge', async (_label, n) => {
    const sent = await withoutCharge(f, () => send(f, '/v1/chat/completions', { body: JSON.stringify({ model: 'gpt-4o-mini', messages, n }) }));
    expect(sent.status, sent.text).toBe(400);
    expectEnvelope(sent, 'openai');
    expect(sent.body.error.param).toBe('n');
  });

  it('the openai SDK sees BadRequestError for n: "2" (sent as the SDK would pass it through)', async () => {
    const client = new OpenAI({ apiKey: keys.good, baseURL: `${f.url}/v1`, maxRetries: 0 });
    const thrown = await withoutCharge(f, () =>
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], n: '2' as unknown as number }).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    expect(thrown).toBeInstanceOf(OpenAI.BadRequestError);
  });
});
