import { afterEach, describe, expect, it } from 'vitest';
import type { SseEvent } from '../fakes/scripted-upstream.js';
import { responsesStream } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';
import { reasoningReport, responsesLeftAt, rowOf } from './usage-wait-helpers.js';

/**
 * From the Responses usage-wait audit: a Responses message is not always the answer's last item. A preamble message
 * ("Let me look that up.") is followed by a function call, or another message. A client that leaves
 * when the first message is done leaves mid-answer: docs/behaviour.md says such a stream is not waited
 * for ("the upstream would go on producing"). The gateway stops reading at the first event that begins more
 * output, and bills the visible text.
 */
let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const reported = reasoningReport;

describe('a Responses message followed by more output', () => {
  it('preamble message then a long function call: a client leaving at output_text.done is not waited for', async () => {
    // A gateway that waits (300 s) reads on through the function call (~20 events x 300 ms) and bills the report.
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '300' } });
    const args = JSON.stringify({ query: 'x'.repeat(40) });
    fixture.primary['openai-responses'].enqueue({
      ...responsesStream({ text: ['Let me', ' check.'], tools: [{ id: 'call_1', name: 'search', args }], stop: 'tool', usage: reported }),
      delayMs: 300,
    });
    const logsBefore = (await fixture.logs()).length;
    expect(await responsesLeftAt(fixture, 'response.output_text.done')).toBe('Let me check.');
    const row = await rowOf(fixture, logsBefore);
    expect({ status: row.status, source: row.source }).toEqual({ status: 499, source: 'local' });
  });

  it('two message items: a client leaving when the first is done is not waited for', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '300' } });
    let seq = 0;
    const ev = (type: string, data: Record<string, unknown>): SseEvent => ({ event: type, data: { type, sequence_number: seq++, ...data } });
    const resp = (status: string, usage: unknown) => ({ id: 'resp_1', object: 'response', created_at: 1, status, model: 'gpt-5', output: [], usage });
    const message = (id: string, index: number, pieces: string[]): SseEvent[] => {
      const text = pieces.join('');
      const at = { item_id: id, output_index: index };
      const item = { id, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], text }] };
      return [
        ev('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } }),
        ev('response.content_part.added', { ...at, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } }),
        ...pieces.map((delta) => ev('response.output_text.delta', { ...at, content_index: 0, delta })),
        ev('response.output_text.done', { ...at, content_index: 0, text }),
        ev('response.content_part.done', { ...at, content_index: 0, part: { type: 'output_text', annotations: [], text } }),
        ev('response.output_item.done', { output_index: index, item }),
      ];
    };
    const sse: SseEvent[] = [
      ev('response.created', { response: resp('in_progress', null) }),
      ...message('msg_1', 0, ['First', ' part.']),
      ...message('msg_2', 1, Array.from({ length: 12 }, () => ' more words')),
      ev('response.completed', { response: resp('completed', { input_tokens: 1_200, input_tokens_details: { cached_tokens: 1_024 }, output_tokens: 2_000, output_tokens_details: { reasoning_tokens: 1_900 }, total_tokens: 3_200 }) }),
    ];
    fixture.primary['openai-responses'].enqueue({ sse, delayMs: 300 });
    const logsBefore = (await fixture.logs()).length;
    expect(await responsesLeftAt(fixture, 'response.output_text.done')).toBe('First part.');
    const row = await rowOf(fixture, logsBefore);
    expect({ status: row.status, source: row.source }).toEqual({ status: 499, source: 'local' });
  });
});

const words = ['Hello', ' there'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * From the Responses usage-wait audit: the endings of a Responses wait (timer, reset, completed, shutdown).
 * A wait that is not ended when it should be shows as a test that runs into its timeout (the waits are
 * longer than the tests' timeouts), not as a measured time.
 */
/** The events up to and including the message's output_item.done (no response.completed). */
const untilItemDone = () => {
  const sse = responsesStream({ text: words, usage: reported }).sse!;
  return sse.slice(0, -1);
};

describe('Responses wait endings', () => {
  it('upstream hangs after the message: the wait (1 s) ends the call; 499, local', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '1' } });
    fixture.primary['openai-responses'].enqueue({ sse: untilItemDone(), delayMs: 100, ending: 'hang' });
    const logsBefore = (await fixture.logs()).length;
    expect(await responsesLeftAt(fixture, 'response.output_text.done')).toBe('Hello there');
    const row = await rowOf(fixture, logsBefore);
    expect(row).toMatchObject({ status: 499, source: 'local', output: tokens('Hello there') });
  });

  it('upstream resets during the wait: 499, local, one row', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '30' } });
    fixture.primary['openai-responses'].enqueue({ sse: untilItemDone(), delayMs: 150, endDelayMs: 300, ending: 'reset' });
    const logsBefore = (await fixture.logs()).length;
    expect(await responsesLeftAt(fixture, 'response.output_text.done')).toBe('Hello there');
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'local' });
    await sleep(200);
    expect((await fixture.logs()).length).toBe(logsBefore + 1);
  });

  it('completed comes then the upstream hangs: billed the report without waiting out the timer', async () => {
    // As the Chat test 'usage inside the finish chunk itself' (ending: hang) does: the report read, reading stops.
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '300' } });
    fixture.primary['openai-responses'].enqueue({ ...responsesStream({ text: words, usage: reported }), delayMs: 150, ending: 'hang' });
    const logsBefore = (await fixture.logs()).length;
    expect(await responsesLeftAt(fixture, 'response.output_text.done')).toBe('Hello there');
    const row = await rowOf(fixture, logsBefore);
    expect(row).toMatchObject({ status: 499, source: 'upstream', input: 1_200, output: 2_000, quota: expectedCharge({ input: 1_200, cacheRead: 1_024, output: 2_000 }) });
  }, 30_000);

  it('a shutdown during a Responses wait (60 s) ends within SHUTDOWN_TIMEOUT', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '60', SHUTDOWN_TIMEOUT: '1' } });
    fixture.primary['openai-responses'].enqueue({ sse: untilItemDone(), delayMs: 100, ending: 'hang' });
    await responsesLeftAt(fixture, 'response.output_text.done');
    await sleep(100);
    const current = fixture;
    fixture = undefined;
    const closing = Date.now();
    await current.gateway.close();
    // Ended by SHUTDOWN_TIMEOUT (1 s), nowhere near the 60 s wait: a bound no slow machine comes near.
    expect(Date.now() - closing).toBeLessThan(15_000);
    for (const upstream of Object.values(current.primary)) await upstream.close();
  }, 30_000);
});
