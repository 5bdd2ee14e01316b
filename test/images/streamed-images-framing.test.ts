/** Streamed images (from the streamed-images audit; docs/behaviour.md "Images"): streamed images — framing edges: a stream mislabelled as text, data-only and CRLF framing, usage that counts nothing. */
import { describe, expect, it } from 'vitest';
import { expectedCharge, gptImagePerImageBudget, useImagesFixture } from './images-fixture.js';

const f = useImagesFixture();

const gen = (body: Record<string, unknown>) => f.post('/v1/images/generations', JSON.stringify({ stream: true, ...body }), { 'content-type': 'application/json' });
const drain = (response: Response) => response.text().catch((error: unknown) => `READ FAILED ${String(error)}`);
const completedJson = (usage?: object) => JSON.stringify({ type: 'image_generation.completed', b64_json: 'RElORQ==', ...(usage ? { usage } : {}) });

describe('framing edges', () => {
  it('last completed event without its closing blank line: counted', async () => {
    f.img.enqueue({ raw: [`event: image_generation.completed\ndata: ${completedJson()}`] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x' })));
    expect(result).toContain('image_generation.completed');
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('token price: a streamed answer mislabelled text/plain still bills its completed events’ usage', async () => {
    f.img.enqueue({ raw: [`event: image_generation.completed\ndata: ${completedJson({ input_tokens: 40, output_tokens: 4160, total_tokens: 4200 })}\n\n`], headers: { 'content-type': 'text/plain' } });
    const { charge } = await f.charged(async () => drain(await gen({ model: 'gpt-image-1', prompt: 'x' })));
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: 40, output: 4160 }));
  });

  it('token price: a completed event with `usage: {}` (no counts) is charged the output budget', async () => {
    const budget = gptImagePerImageBudget(f);
    f.img.enqueue({ raw: [`event: image_generation.completed\ndata: ${completedJson({})}\n\n`] });
    const { charge, log } = await f.charged(async () => drain(await gen({ model: 'gpt-image-1', prompt: 'x' })));
    expect(Number(log.output_tokens)).toBe(budget);
    expect(charge).toBeGreaterThan(0);
  });
});
