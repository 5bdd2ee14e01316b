import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyAsAsked, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { modelOf, promptText, startBillingFixture, type BillingFixture } from './billing-fixture.js';

/**
 * From the image-billing gaps: a converted client saw no image modality details in its usage though the
 * gateway knew the image tokens (Chat clients already saw `image_tokens`). A Gemini client served by an
 * OpenAI channel now gets `promptTokensDetails` / `candidatesTokensDetails` split by modality, and a
 * Responses client served by a Gemini channel `input_tokens_details.image_tokens` /
 * `output_tokens_details.image_tokens`, whole and streamed, through the official SDKs.
 */
const usage: WireUsage = { input: 1500, cacheRead: 300, imageIn: 1000, output: 1400, imageOut: 1290 };
const prompt = [{ role: 'user', parts: [{ text: promptText }] }];

describe('converted clients see the image tokens in their usage', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
  });
  afterAll(async () => fixture?.close());

  const geminiDetails = {
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: 500 }, { modality: 'IMAGE', tokenCount: 1000 }],
    candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 110 }, { modality: 'IMAGE', tokenCount: 1290 }],
  };

  it('a Gemini client served by a Chat channel (whole)', async () => {
    fixture.primary['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: ['Here', ' it is'], usage }));
    const answer = await fixture.sdk.gemini.models.generateContent({ model: modelOf['openai-chat'], contents: prompt });
    expect(answer.usageMetadata).toMatchObject(geminiDetails);
  });

  it('a Gemini client served by a Responses channel (streamed)', async () => {
    fixture.primary['openai-responses'].enqueue(replyAsAsked('openai-responses', { text: ['Here', ' it is'], usage }));
    let last: unknown;
    for await (const chunk of await fixture.sdk.gemini.models.generateContentStream({ model: modelOf['openai-responses'], contents: prompt })) if (chunk.usageMetadata) last = chunk.usageMetadata;
    expect(last).toMatchObject(geminiDetails);
  });

  const responsesDetails = { input_tokens_details: { image_tokens: 1000 }, output_tokens_details: { image_tokens: 1290 } };
  const input = [{ role: 'user' as const, content: promptText }];

  it('a Responses client served by a Gemini channel (whole)', async () => {
    fixture.primary.gemini.enqueue(replyAsAsked('gemini', { text: ['Here', ' it is'], usage }));
    const answer = await fixture.sdk.openai.responses.create({ model: modelOf.gemini, input });
    expect(answer.usage).toMatchObject(responsesDetails);
  });

  it('a Responses client served by a Chat channel (streamed)', async () => {
    fixture.primary['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: ['Here', ' it is'], usage }));
    let completed: unknown;
    for await (const event of await fixture.sdk.openai.responses.create({ model: modelOf['openai-chat'], input, stream: true })) if (event.type === 'response.completed') completed = event.response.usage;
    expect(completed).toMatchObject(responsesDetails);
  });
});
