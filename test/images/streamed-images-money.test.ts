/** Streamed images (from the streamed-images audit; docs/behaviour.md "Images"): money of streamed images — token and per-image prices, n, usage present or missing, names and framing of completed events, resets, aborts. */
import { describe, expect, it } from 'vitest';
import { expectedCharge, gptImagePerImageBudget, useImagesFixture } from './images-fixture.js';

const f = useImagesFixture();

const partial = (index: number, b64 = 'QUJD'.repeat(1024)) => ({ event: 'image_generation.partial_image', data: { type: 'image_generation.partial_image', b64_json: b64, partial_image_index: index } });
const completedData = (usage?: { input_tokens: number; output_tokens: number }) => ({
  type: 'image_generation.completed',
  b64_json: 'RElORQ==',
  ...(usage === undefined ? {} : { usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens, input_tokens_details: { text_tokens: usage.input_tokens, image_tokens: 0 } } }),
});
const completed = (usage?: { input_tokens: number; output_tokens: number }) => ({ event: 'image_generation.completed', data: completedData(usage) });

async function drain(response: Response): Promise<string> {
  return response.text().catch((error: unknown) => `READ FAILED ${String(error)}`);
}
const gen = (body: Record<string, unknown>) => f.post('/v1/images/generations', JSON.stringify({ stream: true, ...body }), { 'content-type': 'application/json' });

describe('token price', () => {
  it('two completed images, the first with usage and the second without: the second is charged the output budget', async () => {
    const budget = gptImagePerImageBudget(f);
    f.img.enqueue({ sse: [partial(0), completed({ input_tokens: 40, output_tokens: 4160 }), partial(0), completed()] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'gpt-image-1', prompt: 'two', n: 2, partial_images: 1 })));
    expect(result.match(/image_generation\.completed/g)?.length).toBe(4);
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: 40, output: 4160 + budget }));
  });

  it('two completed images, the first without usage and the second with: the first is charged the output budget', async () => {
    const budget = gptImagePerImageBudget(f);
    f.img.enqueue({ sse: [completed(), completed({ input_tokens: 40, output_tokens: 4160 })] });
    const { charge } = await f.charged(async () => drain(await gen({ model: 'gpt-image-1', prompt: 'two', n: 2 })));
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: 40, output: 4160 + budget }));
  });

  it('one completed image without usage is charged the prompt plus the output budget', async () => {
    const budget = gptImagePerImageBudget(f);
    f.img.enqueue({ sse: [partial(0), completed()] });
    const { charge, log } = await f.charged(async () => drain(await gen({ model: 'gpt-image-1', prompt: 'one', partial_images: 1 })));
    expect(log.output_tokens).toBe(budget);
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: Number(log.input_tokens), output: budget }));
  });
});

describe('per-image price', () => {
  it('more completed events than n: charged n', async () => {
    f.img.enqueue({ sse: [completed(), completed(), completed()] });
    const { charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x' })));
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('a completed event framed as `event: message` (the SSE default type) is still a delivered image', async () => {
    f.img.enqueue({ sse: [{ event: 'message', data: completedData() }] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x' })));
    expect(result).toContain('image_generation.completed');
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('data-only framing: completed images counted', async () => {
    f.img.enqueue({ sse: [{ data: partial(0).data }, { data: completedData() }, { data: completedData() }] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', n: 2 })));
    expect(result).not.toContain('stream_interrupted');
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 2 }));
  });

  it('CRLF framing: completed images counted', async () => {
    f.img.enqueue({ sse: [partial(0), completed(), completed()], crlf: true });
    const { charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', n: 2 })));
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 2 }));
  });

  it('completed named event whose data is not JSON, or another type: not charged', async () => {
    f.img.enqueue({ sse: [{ event: 'image_generation.completed', data: 'not json' }, { event: 'image_generation.completed', data: { type: 'image_generation.partial_image' } }] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', n: 2 })));
    expect(result).toContain('stream_interrupted');
    expect(charge).toBe(0);
  });

  it('200 text/event-stream carrying an error event: not charged', async () => {
    f.img.enqueue({ sse: [{ event: 'error', data: { type: 'error', error: { type: 'image_generation_user_error', code: 'moderation_blocked', message: 'blocked' } } }] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x' })));
    expect(result).toContain('moderation_blocked');
    expect(charge).toBe(0);
  });

  it('reset after headers, before the first event: fails over to the other channel, charged once', async () => {
    f.img.enqueue({ raw: [': keepalive\n\n'], ending: 'reset' });
    f.spare.enqueue({ sse: [partial(0), completed()] });
    const { result, charge } = await f.charged(async () => {
      const response = await gen({ model: 'dall-e-3', prompt: 'x', partial_images: 1 });
      return { status: response.status, body: await drain(response), attempts: response.headers.get('x-relay-attempts') };
    });
    expect(result.status).toBe(200);
    expect(result.body).toContain('image_generation.completed');
    expect(f.spare.requests).toHaveLength(1);
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('reset before any byte: fails over, charged once', async () => {
    f.img.enqueue({ ending: 'reset' });
    f.spare.enqueue({ sse: [completed()] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x' })));
    expect(result).toContain('image_generation.completed');
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('reset after the first event: no failover, error event, not charged', async () => {
    f.img.enqueue({ sse: [partial(0)], ending: 'reset' });
    f.spare.enqueue({ sse: [completed()] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', partial_images: 1 })));
    expect(result).toContain('stream_interrupted');
    expect(f.spare.requests).toHaveLength(0);
    expect(charge).toBe(0);
  });

  it('reset after one completed of two: one image charged, error event', async () => {
    f.img.enqueue({ sse: [partial(0), completed(), partial(0)], ending: 'reset' });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', n: 2, partial_images: 1 })));
    expect(result).toContain('stream_interrupted');
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('clean end after one completed of two: one image charged', async () => {
    f.img.enqueue({ sse: [completed()] });
    const { charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', n: 2 })));
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });
});
