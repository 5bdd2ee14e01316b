/**
 * Gateway-level: the PDF page estimate is what an upstream that reports no usage is billed (the local
 * count), so a wrong page count is a wrong charge. A 4-page scan whose page objects are in an object
 * stream was billed as 161 pages (a page per 50 KB); a PDF that shows no pages now keeps the flat estimate
 * (found by the review of session 24's last commits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { booked } from '../support/booked-request.js';
import { objectStreamPdf } from './pdf-builders.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

async function anthropicRow(content: any[]) {
  fixture.primary.gemini.enqueue(replyFor('gemini', { text: 'ok' }, false));
  const { row } = await booked(fixture, () => fixture.sdk.anthropic.messages.create({ model: modelOf.gemini, max_tokens: 16, messages: [{ role: 'user', content }] }));
  return Number(row.input_tokens);
}

describe('a scanned PDF billed by its local count', () => {
  it('4 scanned pages (2 MB each, page objects in an object stream) are billed 4 pages, not 161', async () => {
    const text = await anthropicRow([{ type: 'text', text: 'Summarize' }]);
    const pdf = objectStreamPdf(4, 2_000_000).toString('base64');
    const withPdf = await anthropicRow([{ type: 'text', text: 'Summarize' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }]);
    expect(withPdf - text).toBeLessThanOrEqual(4 * 3000);
  }, 60_000);
});
