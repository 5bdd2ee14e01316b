/**
 * From the multimodal audit (money): a Chat Completions client's `file` (PDF) and `input_audio` parts counted
 * nothing in the prompt estimate (reservation) and in the local count billed when the upstream reports no
 * usage, while the very same attachment from an Anthropic / Responses / Gemini client counts 1000 tokens, as images do
 * (docs/behaviour.md "Billing": "plus 4 tokens per message and 1000 per image"; Gemini embeddings: "each
 * media part … as 1000 tokens, as images are everywhere"). Now each counts 1000, on every path — and an
 * inline PDF 3,000 a page (session 24: a 100-page PDF reserved 1,000 tokens).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { booked } from '../support/booked-request.js';
import { classicPdf, objectStreamPdf } from './pdf-builders.js';

const PDF = Buffer.from('%PDF-1.4 '.padEnd(30_000, 'x')).toString('base64');
const WAV = Buffer.from('RIFF'.padEnd(30_000, 'a')).toString('base64');

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const noUsage = () => fixture.primary.gemini.enqueue(replyFor('gemini', { text: 'ok' }, false));

async function chatRow(content: any[]) {
  noUsage();
  const { row } = await booked(fixture, () => fixture.sdk.openai.chat.completions.create({ model: modelOf.gemini, max_tokens: 16, messages: [{ role: 'user', content }] }));
  const reservation = (await fixture.reservations()).find((r) => r.id === row.request_id)!;
  return { inputTokens: Number(row.input_tokens), reserved: reservation.amount, usageSource: row.usage_source };
}

/** An Anthropic client's PDF to the Gemini upstream that reports no usage: its log row and reservation. */
async function anthropicPdfRow(pdf: string) {
  noUsage();
  const { row } = await booked(fixture, () =>
    fixture.sdk.anthropic.messages.create({
      model: modelOf.gemini, max_tokens: 16,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarize' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }] }],
    }),
  );
  return { row, reservation: (await fixture.reservations()).find((r) => r.id === row.request_id)! };
}

describe('Chat client attachments → Gemini upstream that reports no usage (local count)', () => {
  it('a PDF file part is counted (like the same PDF from an Anthropic client), not billed as absent', async () => {
    const text = await chatRow([{ type: 'text', text: 'Summarize' }]);
    const withPdf = await chatRow([{ type: 'text', text: 'Summarize' }, { type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` } }]);
    noUsage();
    const { row: anthropicRow } = await booked(fixture, () =>
      fixture.sdk.anthropic.messages.create({
        model: modelOf.gemini, max_tokens: 16,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarize' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }] }],
      }),
    );
    expect(withPdf.usageSource).toBe('local');
    expect(Number(anthropicRow.input_tokens) - text.inputTokens, 'the Anthropic client is billed 1000 for the PDF').toBeGreaterThanOrEqual(1000);
    expect(withPdf.inputTokens - text.inputTokens, 'the Chat client is billed for the PDF as well').toBeGreaterThanOrEqual(1000);
    expect(withPdf.reserved - text.reserved, 'and its reservation covers it').toBeGreaterThan(0);
  });

  it('an input_audio part is counted (like Gemini audio inlineData from a Gemini client), not billed as absent', async () => {
    const text = await chatRow([{ type: 'text', text: 'Transcribe' }]);
    const withAudio = await chatRow([{ type: 'text', text: 'Transcribe' }, { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } }]);
    expect(withAudio.inputTokens - text.inputTokens).toBeGreaterThanOrEqual(1000);
    expect(withAudio.reserved - text.reserved).toBeGreaterThan(0);
  });
});

describe('a PDF is estimated by its pages (3,000 tokens each), not a flat 1,000', () => {
  it('a 30-page PDF from an Anthropic client and from a Chat client reserves its 90,000 tokens, and is counted so without usage', async () => {
    const pdf = classicPdf(30).toString('base64');
    const text = await chatRow([{ type: 'text', text: 'Summarize' }]);
    const chat = await chatRow([{ type: 'text', text: 'Summarize' }, { type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${pdf}` } }]);
    expect(chat.reserved - text.reserved).toBeGreaterThanOrEqual(expectedCharge({ input: 90_000, output: 0 }));
    expect(chat.inputTokens - text.inputTokens).toBeGreaterThanOrEqual(90_000);
    const { row, reservation } = await anthropicPdfRow(pdf);
    expect(reservation.amount).toBeGreaterThanOrEqual(expectedCharge({ input: 90_000, output: 16 }));
    expect(Number(row.input_tokens)).toBeGreaterThanOrEqual(90_000);
  });
});

describe('a PDF whose pages sit in compressed object streams (pdfTeX, Word, qpdf) is estimated by its pages too', () => {
  it('a 40-page one from an Anthropic client reserves its 120,000 tokens, and is counted so without usage', async () => {
    const pdf = objectStreamPdf(40).toString('base64');
    const { row, reservation } = await anthropicPdfRow(pdf);
    expect(reservation.amount).toBeGreaterThanOrEqual(expectedCharge({ input: 120_000, output: 16 }));
    expect(Number(row.input_tokens)).toBeGreaterThanOrEqual(120_000);
  });
});
