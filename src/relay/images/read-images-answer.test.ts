import { describe, expect, it } from 'vitest';
import { readImageUsage, readImagesAnswer } from './read-images-answer.js';

describe('readImagesAnswer', () => {
  it('counts the images in data and keeps usage as sent', () => {
    const usage = { input_tokens: 5, output_tokens: 272 };
    expect(readImagesAnswer(Buffer.from(JSON.stringify({ created: 1, data: [{ url: 'a' }, { b64_json: 'Yg==' }], usage })))).toEqual({ images: 2, usage, failed: false });
    expect(readImagesAnswer(Buffer.from('{"created":1,"data":[]}'))).toEqual({ images: 0, usage: undefined, failed: false });
  });

  it('knows no count for an answer that is not an Images document', () => {
    const unknown = { images: undefined, usage: undefined, failed: false };
    expect(readImagesAnswer(Buffer.from('not json'))).toEqual(unknown);
    expect(readImagesAnswer(Buffer.from('{"created":1}'))).toEqual(unknown);
    expect(readImagesAnswer(Buffer.from('[1,2]'))).toEqual(unknown);
    expect(readImagesAnswer(Buffer.from('null'))).toEqual(unknown);
  });

  it("bills an Images answer's output tokens as image output, unless its details split them", () => {
    // gpt-image-1: "output_tokens: the number of image tokens in the output image"; input split into text and image.
    const gptImage1 = readImageUsage({ total_tokens: 4410, input_tokens: 250, output_tokens: 4160, input_tokens_details: { text_tokens: 50, image_tokens: 200 } });
    expect(gptImage1).toMatchObject({ input: { total: 250, image: 200 }, output: { total: 4160, image: 4160 } });
    const split = readImageUsage({ input_tokens: 50, output_tokens: 4200, input_tokens_details: { text_tokens: 50, image_tokens: 0 }, output_tokens_details: { image_tokens: 4160, text_tokens: 40 } });
    expect(split?.output).toMatchObject({ total: 4200, image: 4160 });
    expect(split?.input.image).toBeUndefined();
    // A text share alone: the image output is what it leaves, not every output token.
    const textOnly = readImageUsage({ input_tokens: 50, output_tokens: 4200, output_tokens_details: { text_tokens: 40 } });
    expect(textOnly?.output).toMatchObject({ total: 4200, image: 4160 });
    // An image share of none is none, and a text share past the total leaves no image output.
    expect(readImageUsage({ input_tokens: 50, output_tokens: 40, output_tokens_details: { image_tokens: 0, text_tokens: 40 } })?.output.image).toBeUndefined();
    expect(readImageUsage({ input_tokens: 50, output_tokens: 40, output_tokens_details: { text_tokens: 90 } })?.output.image).toBeUndefined();
  });

  it('knows an error document sent with a 2xx', () => {
    expect(readImagesAnswer(Buffer.from('{"error":{"message":"blocked","code":"content_policy_violation"}}'))).toEqual({ images: undefined, usage: undefined, failed: true });
    expect(readImagesAnswer(Buffer.from('{"error":null,"data":[{"url":"a"}]}')).failed).toBe(false);
  });
});
