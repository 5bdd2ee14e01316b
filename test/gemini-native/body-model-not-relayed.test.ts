import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { geminiRaw } from './gemini-support.js';

/**
 * On the Gemini native routes the model is the path's: the key is checked against it and the request priced
 * by it. A body `model` (which @google/genai sends only through `extraBody`: its `model` parameter goes in
 * the path) is not sent to a Gemini channel — Google answers 400 to it, but a Gemini-compatible upstream or
 * proxy may read it and serve another, dearer model at the path model's price. Nor is Vertex AI's
 * `generationConfig.routingConfig` (a router choosing the model). A body without either goes as the
 * client's bytes. docs/behaviour.md "Styles and conversion".
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const dearer = 'gemini-2.5-pro';
const contents = [{ role: 'user', parts: [{ text: 'Hi' }] }];

function lastUpstreamRequest() {
  return fixture.primary.gemini.requests.at(-1)!;
}

describe('a Gemini body naming a model', () => {
  it('generateContent through @google/genai (extraBody model and routingConfig): neither reaches the Gemini channel, the rest does', async () => {
    const before = fixture.primary.gemini.requests.length;
    const answer = await fixture.sdk.gemini.models.generateContent({
      model: modelOf.gemini,
      contents: 'Hi',
      config: {
        temperature: 0.5,
        httpOptions: { extraBody: { model: `models/${dearer}`, generationConfig: { routingConfig: { manualMode: { modelName: dearer } } } } },
      },
    });
    expect(answer.text).toBe('Hello');
    expect(fixture.primary.gemini.requests.length - before).toBe(1);
    const sent = lastUpstreamRequest();
    expect(sent.path).toBe(`/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`);
    expect(sent.body).not.toHaveProperty('model');
    expect(sent.body.generationConfig).not.toHaveProperty('routingConfig');
    expect(sent.body.generationConfig.temperature).toBe(0.5);
    expect(sent.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Hi' }] }]);
    const [row] = (await fixture.logs()).slice(-1);
    expect(row.model).toBe(modelOf.gemini);
    expect(row.warnings).toContain('model named in the body is not sent upstream');
    expect(row.warnings).toContain('routingConfig');
  });

  it('streamGenerateContent through @google/genai (extraBody model): not sent upstream', async () => {
    const stream = await fixture.sdk.gemini.models.generateContentStream({ model: modelOf.gemini, contents: 'Hi', config: { httpOptions: { extraBody: { model: dearer } } } });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe('Hello');
    expect(lastUpstreamRequest().body).not.toHaveProperty('model');
  });

  // The SDK writes camelCase keys it knows and lower-case extraBody keys as given; a lenient reader (Go's
  // encoding/json matches keys in any case, proto JSON takes snake_case) would read these spellings too.
  it('any spelling, in each framing (raw: the SDK sends none of these spellings): none reaches the channel', async () => {
    const body = { contents, Model: dearer, MODEL: dearer, generation_config: { routing_config: { auto_mode: { model_routing_preference: 'PRIORITIZE_QUALITY' } }, max_output_tokens: 50 } };
    for (const action of ['generateContent', 'streamGenerateContent', 'streamGenerateContent?alt=sse']) {
      const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:${action}`, body);
      expect(answer.status, answer.text).toBe(200);
      const sent = lastUpstreamRequest().body;
      expect(Object.keys(sent).sort(), action).toEqual(['contents', 'generation_config']);
      expect(sent.generation_config, action).toEqual({ max_output_tokens: 50 });
    }
  });

  it('a body without a model choice goes upstream as the client\'s bytes', async () => {
    const bytes = '{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],   "cachedContent":"cachedContents/other-model-cache","generationConfig":{"maxOutputTokens":50}}';
    const response = await fetch(`${fixture.gateway.url}/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': callerKey }, body: bytes });
    expect(response.status).toBe(200);
    await response.text();
    expect(lastUpstreamRequest().rawBody).toBe(bytes);
  });
});

describe('a Gemini embedding body naming a model', () => {
  it(':embedContent naming another model than the path → 400 naming `model`, no upstream call', async () => {
    const before = fixture.primary.gemini.requests.length;
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:embedContent`, { model: `models/${dearer}`, content: { parts: [{ text: 'hello' }] } });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(answer.json.error.message).toContain('model');
    expect(fixture.primary.gemini.requests.length).toBe(before);
  });

  it(':embedContent naming the path model is relayed as sent', async () => {
    fixture.primary.gemini.enqueue({ json: { embedding: { values: [1, 2, 3] } } });
    const body = { model: `models/${modelOf.gemini}`, content: { parts: [{ text: 'hello' }] } };
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:embedContent`, body);
    expect(answer.status, answer.text).toBe(200);
    expect(lastUpstreamRequest().body).toEqual(body);
  });
});
