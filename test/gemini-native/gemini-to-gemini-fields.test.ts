import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { booked, geminiRaw } from './gemini-support.js';

/**
 * A Gemini client in front of a Gemini channel. docs/behaviour.md ("Styles and conversion"): same style
 * in and out → the client's bytes go upstream; a non-streaming Gemini client and one without alt=sse "go
 * through conversion because the upstream is always called with SSE". The reason given is the ANSWER's
 * framing; nothing says the REQUEST loses Gemini-only fields on the way to a Gemini upstream. A field that
 * Gemini itself understands (safetySettings, cachedContent, built-in tools, responseModalities,
 * candidateCount, labels, mediaResolution) has nothing to be converted into: it should reach the Gemini
 * upstream whichever framing the client asked for, as it does for `:streamGenerateContent?alt=sse`.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const geminiOnly = {
  safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
  tools: [{ googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }],
  cachedContent: 'cachedContents/abc123',
  labels: { team: 'search' },
};
const generationOnly = { responseModalities: ['TEXT'], mediaResolution: 'MEDIA_RESOLUTION_LOW', candidateCount: 1, responseLogprobs: true, logprobs: 2 };
const body = {
  contents: [{ role: 'user', parts: [{ text: 'Who won the 2022 world cup?' }] }],
  ...geminiOnly,
  generationConfig: { temperature: 0.3, ...generationOnly },
};

async function upstreamBodyFor(path: string): Promise<any> {
  const upstream = fixture.primary.gemini;
  const before = upstream.requests.length;
  const answer = await geminiRaw(fixture.gateway.url, path, body);
  expect(answer.status, answer.text).toBe(200);
  expect(upstream.requests.length - before).toBe(1);
  return upstream.requests.at(-1)!.body;
}

describe('Gemini-only request fields reach a Gemini channel', () => {
  it('streamGenerateContent?alt=sse (bytes passed through): every field arrives', async () => {
    const sent = await upstreamBodyFor(`/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`);
    expect(sent).toMatchObject(geminiOnly);
    expect(sent.generationConfig).toMatchObject(generationOnly);
  });

  describe('generateContent (non-streaming, the SDK\'s models.generateContent): the same fields arrive', () => {
    const path = () => `/v1beta/models/${modelOf.gemini}:generateContent`;
    it('safetySettings', async () => {
      expect((await upstreamBodyFor(path())).safetySettings).toEqual(geminiOnly.safetySettings);
    });
    it('built-in tools googleSearch / codeExecution / urlContext', async () => {
      expect((await upstreamBodyFor(path())).tools).toEqual(geminiOnly.tools);
    });
    it('cachedContent', async () => {
      expect((await upstreamBodyFor(path())).cachedContent).toBe(geminiOnly.cachedContent);
    });
    it('generationConfig responseModalities / mediaResolution / responseLogprobs / logprobs / candidateCount', async () => {
      expect((await upstreamBodyFor(path())).generationConfig).toMatchObject(generationOnly);
    });
    it('toolConfig ANY with two allowedFunctionNames keeps both names', async () => {
      const upstream = fixture.primary.gemini;
      const before = upstream.requests.length;
      const toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f', 'g'] } };
      const decl = (name: string) => ({ name, parameters: { type: 'OBJECT', properties: {} } });
      const answer = await geminiRaw(fixture.gateway.url, path(), { contents: body.contents, tools: [{ functionDeclarations: [decl('f'), decl('g'), decl('h')] }], toolConfig });
      expect(answer.status, answer.text).toBe(200);
      expect(upstream.requests.length - before).toBe(1);
      expect(upstream.requests.at(-1)!.body.toolConfig).toEqual(toolConfig);
    });
  });

  it('streamGenerateContent without alt=sse (JSON array): the same fields arrive', async () => {
    const sent = await upstreamBodyFor(`/v1beta/models/${modelOf.gemini}:streamGenerateContent`);
    expect(sent.safetySettings, 'safetySettings').toEqual(geminiOnly.safetySettings);
    expect(sent.tools, 'built-in tools').toEqual(geminiOnly.tools);
    expect(sent.cachedContent, 'cachedContent').toBe(geminiOnly.cachedContent);
  });
});

describe('Gemini-only answer fields reach a non-streaming Gemini client', () => {
  it('groundingMetadata (googleSearch results) and citationMetadata of the candidate come back', async () => {
    const grounding = { webSearchQueries: ['world cup 2022 winner'], groundingChunks: [{ web: { uri: 'https://example.com/wc', title: 'WC' } }] };
    // REST names the list citationSources; the SDK hands it over as citations.
    const source = { startIndex: 0, endIndex: 9, uri: 'https://example.com/wc' };
    const citation = { citationSources: [source] };
    fixture.primary.gemini.enqueue({
      sse: [
        { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'Argentina won.' }] }, index: 0 }], modelVersion: 'gemini-2.5-flash', responseId: 'g1' } },
        { data: { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0, groundingMetadata: grounding, citationMetadata: citation }], usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 3, totalTokenCount: 12 }, modelVersion: 'gemini-2.5-flash', responseId: 'g1' } },
      ],
      crlf: true,
    });
    const response = await fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'Who won the 2022 world cup?', config: { tools: [{ googleSearch: {} }] } });
    expect(response.text).toBe('Argentina won.');
    expect(response.candidates?.[0]?.groundingMetadata, 'groundingMetadata').toEqual(grounding);
    expect(response.candidates?.[0]?.citationMetadata, 'citationMetadata').toEqual({ citations: [source] });
  });
});

describe('an in-band error from a Gemini channel, behind a Gemini client that does not stream SSE', () => {
  const text = (value: string) => ({ data: { candidates: [{ content: { role: 'model', parts: [{ text: value }] }, index: 0 }], modelVersion: 'gemini-2.5-flash', responseId: 'e1' } });
  const failing = () => ({ sse: [text('Half an'), text(' answer'), streamErrorEvent('gemini', 'The model is overloaded.')], crlf: true });

  it('non-streaming: no 200 with the partial text — the SDK raises the failure, billed prompt + produced text', async () => {
    fixture.primary.gemini.enqueue(failing());
    const { error, row } = await booked(fixture, () => fixture.sdk.gemini.models.generateContent({ model: modelOf.gemini, contents: 'Say hello' }));
    expect(error?.status).toBe(502);
    expect(String(error?.message)).toContain('The model is overloaded.');
    expect({ source: row.usage_source, output: Number(row.output_tokens) }).toEqual({ source: 'local', output: tokens('Half an answer') });
  });

  it('JSON array: the elements sent so far, then the error as the last element, in one valid array', async () => {
    fixture.primary.gemini.enqueue(failing());
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:streamGenerateContent`, { contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] });
    expect(answer.status).toBe(200);
    const elements = JSON.parse(answer.text) as Record<string, any>[];
    expect(elements.slice(0, 2).map((element) => element.candidates[0].content.parts[0].text)).toEqual(['Half an', ' answer']);
    expect(elements.at(-1)).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
  });
});
