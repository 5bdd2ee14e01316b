/**
 * A PDF a tool returned (Claude Code's Read returns one as a `document` block in its tool_result) is read by
 * the upstream and billed by it, so it is reserved: 3,000 tokens a page, as the same PDF in a user turn is.
 * It counted nothing before — the tool result's PDF was dropped from the canonical form the estimate reads —
 * so a key that could pay for the text but not the PDF was served, and its charge above the reservation
 * taken only as far as the balance went (the operator paid the rest). Each client style's own channel
 * (the body passed through as sent), through the style's SDK.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';
import { classicPdf } from './pdf-builders.js';

let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const pdf = classicPdf(30).toString('base64');
/** Covers a short tool turn many times over, and a 30-page PDF's 90,000 tokens not at all. */
const balance = expectedCharge({ input: 20_000, output: 16 });

/** A turn that called `read_file`, its result, and a question — with the PDF in the result or not — through the style's SDK. */
function sendToolTurn(current: BillingFixture, style: WireStyle, withPdf: boolean): Promise<unknown> {
  const model = modelOf[style];
  switch (style) {
    case 'anthropic':
      return current.sdk.anthropic.messages.create({
        model, max_tokens: 16,
        tools: [{ name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
        messages: [
          { role: 'user', content: 'Summarize report.pdf' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'report.pdf' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'report.pdf:' }, ...(withPdf ? [{ type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: pdf } }] : [])] }] },
        ],
      });
    case 'openai-responses':
      return current.sdk.openai.responses.create({
        model, max_output_tokens: 16,
        tools: [{ type: 'function', name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false }],
        input: [
          { role: 'user', content: 'Summarize report.pdf' },
          { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"report.pdf"}' },
          { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'report.pdf:' }, ...(withPdf ? [{ type: 'input_file' as const, filename: 'report.pdf', file_data: `data:application/pdf;base64,${pdf}` }] : [])] },
        ],
      });
    case 'gemini':
      return current.sdk.gemini.models.generateContent({
        model,
        config: { maxOutputTokens: 16, tools: [{ functionDeclarations: [{ name: 'read_file', parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } } } }] }] },
        contents: [
          { role: 'user', parts: [{ text: 'Summarize report.pdf' }] },
          { role: 'model', parts: [{ functionCall: { id: 'fc_1', name: 'read_file', args: { path: 'report.pdf' } } }] },
          { role: 'user', parts: [{ functionResponse: { id: 'fc_1', name: 'read_file', response: { output: 'report.pdf:' }, ...(withPdf ? { parts: [{ inlineData: { mimeType: 'application/pdf', data: pdf } }] } : {}) } }] },
        ],
      });
    case 'openai-chat':
      throw new Error('Chat tool messages hold text only');
  }
}

describe('a 30-page PDF in a tool result is reserved by its pages', () => {
  for (const style of ['anthropic', 'openai-responses', 'gemini'] as const) {
    it(`${style} client → ${style} channel: a key that pays for the turn without the PDF is refused 402 with it, before any upstream call`, async () => {
      fixture = await startBillingFixture({ tokenQuota: balance, userQuota: 100_000_000 });
      fixture.primary[style].enqueue(replyFor(style, { text: 'ok', usage: { input: 40, output: 1 } }, style === 'gemini'));
      await sendToolTurn(fixture, style, false);
      expect(fixture.primary[style].requests).toHaveLength(1);
      const refused = await sendToolTurn(fixture, style, true).then(
        () => undefined,
        (error: { status?: number }) => error.status,
      );
      expect(refused).toBe(402);
      expect(fixture.primary[style].requests, 'the upstream was not called for the refused request').toHaveLength(1);
    });
  }
});
