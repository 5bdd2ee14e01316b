import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { geminiStream } from '../fakes/scripted-vendor-wire.js';
import { booked } from './gemini-support.js';

/**
 * A Gemini channel is always called streamed; a non-streaming client's answer is collected whole before it
 * is sent (merged for a Gemini client, converted for the others). That collection is bounded like a
 * whole-body read (MAX_UPSTREAM_RESPONSE_MB, 1 here): past it the attempt is abandoned and fails over.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, fallbacks: true, env: { MAX_UPSTREAM_RESPONSE_MB: '1' } });
});
afterAll(async () => fixture?.close());

/** Four events of 400 KB of text each: every event is far below the 8 MiB event bound, the whole above 1 MiB. */
const oversized = () => geminiStream({ text: Array.from({ length: 4 }, (_, index) => String(index).repeat(400 * 1024)), usage: { input: 10, output: 400_000 } });
/** The log row's attempts (stored as JSON text on SQLite). */
type Attempt = { channel_id: number; status: number | null; error?: string };
const attemptsOf = (row: { attempts: unknown }): Attempt[] => (typeof row.attempts === 'string' ? JSON.parse(row.attempts) : row.attempts) as Attempt[];

describe('a whole answer collected from a Gemini stream', () => {
  it.each([
    ['a Gemini client (merged)', () => fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'hi' }).then((answer) => answer.text)],
    ['a Chat client (converted)', () => fixture.sdk.openai.chat.completions.create({ model: modelOf.gemini, messages: [{ role: 'user', content: 'hi' }] }).then((answer) => answer.choices[0]?.message.content)],
  ])('%s: past MAX_UPSTREAM_RESPONSE_MB the attempt is abandoned and the next channel serves', async (_client, send) => {
    fixture.primary.gemini.enqueue(oversized());
    const { result, row } = await booked(fixture, send);
    expect(result).toBe('Hello');
    const attempts = attemptsOf(row);
    expect(attempts.map((attempt) => attempt.status)).toEqual([null, 200]);
    expect(attempts[0]!.error).toContain('larger than 1048576 bytes');
    expect(row.channel_id).toBe(fixture.channelIds['fallback-gemini']);
  });

  it('a streaming client is not bounded: the same answer streams through whole', async () => {
    fixture.primary.gemini.enqueue(oversized());
    let text = '';
    const { row } = await booked(fixture, async () => {
      for await (const chunk of await fixture.sdk.gemini.models.generateContentStream({ model: modelOf.gemini, contents: 'hi' })) text += chunk.text ?? '';
    });
    expect(text.length).toBe(4 * 400 * 1024);
    expect(attemptsOf(row).map((attempt) => attempt.status)).toEqual([200]);
  });
});
