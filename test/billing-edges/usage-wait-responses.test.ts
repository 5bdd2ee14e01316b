import { afterEach, describe, expect, it } from 'vitest';
import { responsesStream } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';
import { reasoningReport, responsesLeftAt, rowOf } from './usage-wait-helpers.js';

/**
 * The usage wait (docs/behaviour.md "Billing", USAGE_WAIT_SECONDS) for a Responses client of a Responses
 * channel: its usage comes in `response.completed`, after the message's `response.output_text.done`,
 * `content_part.done` and `output_item.done`. Code that stops once the text is done
 * (`if (event.type === 'response.output_text.done') break;`) leaves before the report; billed by a local
 * count of the visible text, a reasoning model's answer would pay none of its reasoning. The gateway reads on
 * for the report once the message is finished — never while it is still being written, nor after a
 * reasoning item, which a message may still follow.
 */
let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const reported = reasoningReport;
const words = ['Hello', ' there', ' my', ' friend'];
const billedReport = expectedCharge({ input: reported.input, cacheRead: reported.cacheRead, output: reported.output });

describe('a Responses client that leaves once the message is finished is billed the usage report that follows it', () => {
  for (const leaveAt of ['response.output_text.done', 'response.content_part.done', 'response.output_item.done']) {
    it(`left at ${leaveAt}: the reasoning and cached tokens of the report`, async () => {
      fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
      fixture.primary['openai-responses'].enqueue({ ...responsesStream({ text: words, usage: reported }), delayMs: 150 });
      const logsBefore = (await fixture.logs()).length;
      expect(await responsesLeftAt(fixture, leaveAt)).toBe(words.join(''));
      expect(await rowOf(fixture, logsBefore)).toEqual({ status: 499, source: 'upstream', input: reported.input, output: reported.output, quota: billedReport });
    });
  }

  it('left mid-message: not waited for — the upstream call ends and the visible text is counted locally', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    fixture.primary['openai-responses'].enqueue({ ...responsesStream({ text: words, usage: reported }), delayMs: 150 });
    const logsBefore = (await fixture.logs()).length;
    const seen = await responsesLeftAt(fixture, 'response.output_text.delta');
    expect(seen).toBe('Hello');
    const row = await rowOf(fixture, logsBefore);
    expect({ status: row.status, source: row.source }).toEqual({ status: 499, source: 'local' });
    expect(row.output).toBeLessThan(tokens(words.join('')));
  });

  it('left when a reasoning item finished: not waited for (a message may still follow)', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    const answer = { thinking: { text: 'Let me think about it.', signature: 'enc_1' }, text: words, usage: reported };
    fixture.primary['openai-responses'].enqueue({ ...responsesStream(answer), delayMs: 150 });
    const logsBefore = (await fixture.logs()).length;
    expect(await responsesLeftAt(fixture, 'response.output_item.done')).toBe('');
    expect((await rowOf(fixture, logsBefore)).source).toBe('local');
  });
});
