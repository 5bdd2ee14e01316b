/**
 * Streamed image generation (`stream: true`, `partial_images`) through the openai SDK: partial images and
 * completed images relayed as OpenAI frames them (`event: image_generation.partial_image` …), each
 * completed image billed — its usage for a token price, one call for a per-image price — and nothing for
 * partial images alone. Expected charges come from images-fixture.ts.
 */
import { describe, expect, it } from 'vitest';
import { expectedCharge, useImagesFixture } from './images-fixture.js';

const f = useImagesFixture();

/** A partial image: its base64 is large, as the real ones are (a few hundred KB here). */
const partial = (index: number) => ({ event: 'image_generation.partial_image', data: { type: 'image_generation.partial_image', b64_json: 'QUJD'.repeat(64 * 1024), partial_image_index: index, created_at: 1, size: '1024x1024', quality: 'low', background: 'opaque', output_format: 'png' } });
const completed = (usage?: { input_tokens: number; output_tokens: number }) => ({
  event: 'image_generation.completed',
  data: { type: 'image_generation.completed', b64_json: 'RElORQ==', created_at: 2, size: '1024x1024', quality: 'low', background: 'opaque', output_format: 'png', ...(usage === undefined ? {} : { usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens, input_tokens_details: { text_tokens: usage.input_tokens, image_tokens: 0 } } }) },
});

async function collect(stream: AsyncIterable<{ type: string }>): Promise<string[]> {
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  return types;
}

describe('streamed image generation', () => {
  it('relays partial and completed images as OpenAI frames them, billed at the completed image’s usage', async () => {
    f.img.enqueue({ sse: [partial(0), partial(1), completed({ input_tokens: 40, output_tokens: 4160 })] });
    const { result, charge, log } = await f.charged(async () => collect(await f.client.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse', stream: true, partial_images: 2 })));
    expect(result).toEqual(['image_generation.partial_image', 'image_generation.partial_image', 'image_generation.completed']);
    expect(f.img.requests[0]?.body).toEqual({ model: 'gpt-image-1', prompt: 'a lighthouse', stream: true, partial_images: 2 });
    expect(f.img.requests[0]?.headers.accept).toBe('text/event-stream');
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: 40, output: 4160 }));
    expect(log).toMatchObject({ is_stream: 1, input_tokens: 40, output_tokens: 4160, usage_source: 'upstream', status: 200 });
  });

  it('bills a per-image price per completed image, and the model as mapped', async () => {
    f.img.enqueue({ sse: [partial(0), completed(), partial(0), completed()] });
    const { result, charge, log } = await f.charged(async () => collect(await f.client.images.generate({ model: 'img-alias', prompt: 'two maps', n: 2, stream: true, partial_images: 1 })));
    expect(result.filter((type) => type === 'image_generation.completed')).toHaveLength(2);
    expect(f.img.requests[0]?.body).toMatchObject({ model: 'gpt-image-upstream', stream: true });
    expect(charge).toBe(expectedCharge('img-alias', { images: 2 }));
    expect(log).toMatchObject({ model: 'img-alias', upstream_model: 'gpt-image-upstream' });
  });

  it('a stream that ends before any image completed: an error event for the client, no image charged', async () => {
    f.img.enqueue({ sse: [partial(0), partial(1)] });
    const { result, charge, log } = await f.charged(async () =>
      collect(await f.client.images.generate({ model: 'img-alias', prompt: 'cut', stream: true, partial_images: 2 })).then(
        () => 'completed',
        (error: unknown) => (error as Error).message,
      ),
    );
    expect(result).toMatch(/interrupted/);
    expect(charge).toBe(0);
    expect(log.error).toMatch(/interrupted/);
  });

  it('a token-priced stream cut before its image completed is billed its prompt only', async () => {
    f.img.enqueue({ sse: [partial(0)], ending: 'reset' });
    const { charge, log } = await f.charged(async () =>
      collect(await f.client.images.generate({ model: 'gpt-image-1', prompt: 'cut short', stream: true, partial_images: 1 })).catch(() => undefined),
    );
    expect(log).toMatchObject({ output_tokens: 0, usage_source: 'local' });
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: Number(log.input_tokens) }));
  });

  it('an upstream that answers a stream request with one JSON document is relayed and billed as one', async () => {
    f.img.enqueue({ json: { created: 1, data: [{ b64_json: 'AAAA' }], usage: { input_tokens: 10, output_tokens: 272, total_tokens: 282 } } });
    const response = await f.post('/v1/images/generations', JSON.stringify({ model: 'gpt-image-1', prompt: 'no stream here', stream: true }), { 'content-type': 'application/json' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1);
  });
});
