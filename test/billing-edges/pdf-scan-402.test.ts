/**
 * An honest small request must not be refused: a 4-page scan (8 MB, page objects in an object stream) was
 * estimated at 161 pages by its size (483,000 tokens ≈ $1.45 at $3/M), so a caller with $0.60 left was
 * refused 402 for a request that costs ~12,000 tokens (≈ $0.04). A PDF that shows no pages now keeps the
 * flat estimate (found by the review of session 24's last commits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { objectStreamPdf } from './pdf-builders.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 300_000, userQuota: 300_000 });
});
afterAll(async () => fixture?.close());

describe('a small scanned PDF with a modest balance', () => {
  it('is served, not refused 402', async () => {
    fixture.primary.gemini.enqueue(replyFor('gemini', { text: 'ok', usage: { input: 12_000, output: 1 } }, false));
    const pdf = objectStreamPdf(4, 2_000_000).toString('base64');
    const message = await fixture.sdk.anthropic.messages.create({
      model: modelOf.gemini, max_tokens: 16,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarize' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }] }],
    }).catch((error: { status?: number }) => ({ refused: error.status }));
    expect(message).not.toHaveProperty('refused');
  }, 60_000);
});
