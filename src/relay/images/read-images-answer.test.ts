import { describe, expect, it } from 'vitest';
import { readImagesAnswer } from './read-images-answer.js';

describe('readImagesAnswer', () => {
  it('counts the images in data and keeps usage as sent', () => {
    const usage = { input_tokens: 5, output_tokens: 272 };
    expect(readImagesAnswer(Buffer.from(JSON.stringify({ created: 1, data: [{ url: 'a' }, { b64_json: 'Yg==' }], usage })))).toEqual({ images: 2, usage });
    expect(readImagesAnswer(Buffer.from('{"created":1,"data":[]}'))).toEqual({ images: 0, usage: undefined });
  });

  it('knows no count for an answer that is not an Images document', () => {
    expect(readImagesAnswer(Buffer.from('not json'))).toEqual({ images: undefined, usage: undefined });
    expect(readImagesAnswer(Buffer.from('{"created":1}'))).toEqual({ images: undefined, usage: undefined });
    expect(readImagesAnswer(Buffer.from('[1,2]'))).toEqual({ images: undefined, usage: undefined });
    expect(readImagesAnswer(Buffer.from('null'))).toEqual({ images: undefined, usage: undefined });
  });
});
