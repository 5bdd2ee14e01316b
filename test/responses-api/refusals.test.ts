import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SseEvent } from '../fakes/scripted-upstream.js';
import { chatStream, chatWhole } from '../fakes/scripted-vendor-wire.js';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';

/** A Chat upstream's `message.refusal` / `delta.refusal` reaches a Responses client as a `refusal` content part, not as output text. */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

describe('a refusal from a Chat upstream, to a Responses client', () => {
  it('is a refusal part of the message, and output_text stays empty', async () => {
    const reply = chatWhole({ text: '', usage: { input: 10, output: 5 } });
    const body = (reply as { json: { choices: { message: Record<string, unknown> }[] } }).json;
    body.choices[0]!.message.content = null;
    body.choices[0]!.message.refusal = "I'm sorry, I can't help with that.";
    fixture.primary['openai-chat'].enqueue(reply);
    const response = await fixture.sdk.openai.responses.create({ model: modelOf['openai-chat'], input: 'Something I should refuse' });
    const message = response.output.find((item) => item.type === 'message');
    expect(message?.type === 'message' && message.content).toEqual([{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }]);
    expect(response.output_text).toBe('');
  });

  it('streamed: refusal events, and the final response holds the refusal part', async () => {
    const reply = chatStream({ text: ["I'm sorry, ", "I can't."], usage: { input: 10, output: 5 } });
    // The same stream with its content deltas turned into refusal deltas, as OpenAI streams a refusal.
    for (const event of reply.sse as SseEvent[]) {
      const delta = (event.data as { choices?: { delta: Record<string, unknown> }[] }).choices?.[0]?.delta;
      if (delta !== undefined && typeof delta.content === 'string' && delta.content !== '') {
        delta.refusal = delta.content;
        delete delta.content;
      }
    }
    fixture.primary['openai-chat'].enqueue(reply);
    const stream = fixture.sdk.openai.responses.stream({ model: modelOf['openai-chat'], input: 'Something I should refuse' });
    let refused = '';
    stream.on('response.refusal.delta', (event) => (refused += event.delta));
    const response = await stream.finalResponse();
    expect(refused).toBe("I'm sorry, I can't.");
    const message = response.output.find((item) => item.type === 'message');
    expect(message?.type === 'message' && message.content).toMatchObject([{ type: 'refusal', refusal: "I'm sorry, I can't." }]);
    expect(response.output_text).toBe('');
  });
});
