import { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { tokens } from '../billing-edges/billing-fixture.js';
import { binaryImage, expectedCharge, gptImagePerImageBudget, imagesAnswer, useImagesFixture } from './images-fixture.js';

/**
 * gpt-image models bill image tokens above text: gpt-image-1.5 lists $8 per million input image tokens
 * against $5 for text, and $32 per million output image tokens against $10. A model priced with
 * `image_input` / `image_output` is charged its usage's image tokens at those prices: the input images
 * `input_tokens_details.image_tokens` names, and its output tokens — "the number of image tokens in the
 * output image" — unless `output_tokens_details.image_tokens` splits them.
 */
const f = useImagesFixture();

describe('image tokens at the image prices (Images API)', () => {
  it('the output tokens of an answer without output details are all image output', async () => {
    const usage = { input_tokens: 250, output_tokens: 4160, total_tokens: 4410, input_tokens_details: { text_tokens: 50, image_tokens: 200 } };
    f.img.enqueue({ json: imagesAnswer(1, { b64: true, usage }) });
    const { charge, log } = await f.charged(() => f.client.images.generate({ model: 'gpt-image-1.5', prompt: 'a lighthouse at dusk' }));
    const expected = expectedCharge('gpt-image-1.5', { input: 250, imageIn: 200, output: 4160, imageOut: 4160 });
    // 50×5 + 200×8 + 4,160×32 = 134,970 milli-$ per 1M → 67,485; at the text prices it would be 21,925.
    expect(expected).toBe(67_485);
    expect(charge).toBe(expected);
    expect(log).toMatchObject({ input_tokens: 250, image_input_tokens: 200, output_tokens: 4160, image_output_tokens: 4160, usage_source: 'upstream' });
  });

  it('an answer whose output details split text from image bills each part at its price', async () => {
    const usage = { input_tokens: 50, output_tokens: 4200, total_tokens: 4250, input_tokens_details: { text_tokens: 50, image_tokens: 0 }, output_tokens_details: { text_tokens: 40, image_tokens: 4160 } };
    f.img.enqueue({ json: imagesAnswer(1, { b64: true, usage }) });
    const { charge, log } = await f.charged(() => f.client.images.generate({ model: 'gpt-image-1.5', prompt: 'a lighthouse at dusk' }));
    expect(charge).toBe(expectedCharge('gpt-image-1.5', { input: 50, output: 4200, imageOut: 4160 }));
    expect(log).toMatchObject({ image_input_tokens: 0, output_tokens: 4200, image_output_tokens: 4160 });
  });

  it('output details with a text share alone: the image output is what the text leaves', async () => {
    const usage = { input_tokens: 50, output_tokens: 4200, total_tokens: 4250, output_tokens_details: { text_tokens: 40 } };
    f.img.enqueue({ json: imagesAnswer(1, { b64: true, usage }) });
    const { charge, log } = await f.charged(() => f.client.images.generate({ model: 'gpt-image-1.5', prompt: 'a lighthouse at dusk' }));
    expect(log).toMatchObject({ output_tokens: 4200, image_output_tokens: 4160 });
    expect(charge).toBe(expectedCharge('gpt-image-1.5', { input: 50, output: 4200, imageOut: 4160 }));
  });

  it('an edit without usage bills its reference images (counted locally) at the image input price', async () => {
    f.img.enqueue({ json: imagesAnswer(1, { b64: true }) });
    const budget = gptImagePerImageBudget(f, 'gpt-image-1.5');
    const images = await Promise.all([toFile(binaryImage(1), 'a.png', { type: 'image/png' }), toFile(binaryImage(2), 'b.png', { type: 'image/png' })]);
    const { charge, log } = await f.charged(() => f.client.images.edit({ model: 'gpt-image-1.5', image: images, prompt: 'put them side by side' }));
    // Each reference image is the flat 1,000-token estimate of any image in a prompt; the prompt's text is the rest.
    const input = tokens('put them side by side') + 2000;
    expect(log).toMatchObject({ usage_source: 'local', input_tokens: input, image_input_tokens: 2000, output_tokens: budget, image_output_tokens: budget });
    expect(charge).toBe(expectedCharge('gpt-image-1.5', { input, imageIn: 2000, output: budget, imageOut: budget }));
  });

  it('an image without usage costs its output budget at the image output price', async () => {
    f.img.enqueue({ json: imagesAnswer(2, { b64: true }) });
    const budget = gptImagePerImageBudget(f, 'gpt-image-1.5');
    const { charge, log } = await f.charged(() => f.client.images.generate({ model: 'gpt-image-1.5', prompt: 'a lighthouse at dusk', n: 2 }));
    expect(log).toMatchObject({ usage_source: 'local', output_tokens: 2 * budget, image_output_tokens: 2 * budget });
    expect(charge).toBe(expectedCharge('gpt-image-1.5', { input: Number(log.input_tokens), output: 2 * budget, imageOut: 2 * budget }));
  });

  it('a streamed image without usage beside one with usage: the budget is image output too', async () => {
    const usage = { input_tokens: 50, output_tokens: 1056, total_tokens: 1106, input_tokens_details: { text_tokens: 50, image_tokens: 0 } };
    f.img.enqueue({
      sse: [
        { event: 'image_generation.completed', data: { type: 'image_generation.completed', b64_json: 'AAAA', usage } },
        { event: 'image_generation.completed', data: { type: 'image_generation.completed', b64_json: 'BBBB' } },
      ],
    });
    const budget = gptImagePerImageBudget(f, 'gpt-image-1.5');
    const { charge, log } = await f.charged(async () => {
      const stream = await f.client.images.generate({ model: 'gpt-image-1.5', prompt: 'two boats', n: 2, stream: true });
      let completed = 0;
      for await (const event of stream) if (event.type === 'image_generation.completed') completed += 1;
      return completed;
    });
    expect(log).toMatchObject({ output_tokens: 1056 + budget, image_output_tokens: 1056 + budget });
    expect(charge).toBe(expectedCharge('gpt-image-1.5', { input: 50, output: 1056 + budget, imageOut: 1056 + budget }));
  });
});
