import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatWhole } from '../fakes/scripted-vendor-wire.js';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';

/** A Chat upstream's `message.refusal` reaches a Responses client as a `refusal` content part, not as output text. */
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
});
