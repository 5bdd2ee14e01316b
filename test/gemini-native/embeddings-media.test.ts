/**
 * Multimodal embeddings: gemini-embedding-2 embeds images, video, audio and documents too, and Google bills
 * them; the gateway counts each media part at its usual 1000 tokens per image (src/relay/count-tokens.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, geminiRaw } from '../gemini-native/gemini-support.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, modelMapping: { gemini: { [modelOf.gemini]: 'gemini-embedding-2' } } });
});
afterAll(async () => fixture?.close());

describe('Gemini multimodal embeddings', () => {
  it('an embedContent whose content is an image is served and charged as 1000 input tokens', async () => {
    fixture.primary.gemini.enqueue({ json: { embedding: { values: [0.1, 0.2, 0.3] } } });
    const image = Buffer.alloc(200_000, 7).toString('base64');
    const { result, charged } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:embedContent`, { content: { parts: [{ inlineData: { mimeType: 'image/png', data: image } }] } }));
    expect(result!.status).toBe(200);
    expect(fixture.primary.gemini.requests.at(-1)!.path).toBe('/v1beta/models/gemini-embedding-2:embedContent');
    expect(charged).toBe(expectedCharge({ input: 1000, output: 0 }));
  });
});
