import { describe, expect, it } from 'vitest';
import { readImagesAnswer } from './read-images-answer.js';

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

  it('knows an error document sent with a 2xx', () => {
    expect(readImagesAnswer(Buffer.from('{"error":{"message":"blocked","code":"content_policy_violation"}}'))).toEqual({ images: undefined, usage: undefined, failed: true });
    expect(readImagesAnswer(Buffer.from('{"error":null,"data":[{"url":"a"}]}')).failed).toBe(false);
  });
});
