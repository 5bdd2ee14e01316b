import { describe, expect, it } from 'vitest';
import { computePictureOutputTokens } from './compute-picture-output-tokens.js';

const ask = (models: string[], body: Record<string, unknown> = {}, style: 'gemini' | 'openai-chat' = 'gemini', pricedImageOutput = false) =>
  computePictureOutputTokens({ style, body, models, pricedImageOutput });

describe('computePictureOutputTokens', () => {
  it('counts Google\'s tokens for one picture of each image model', () => {
    expect(ask(['gemini-2.5-flash-image'])).toBe(1290);
    expect(ask(['gemini-2.5-flash-image-preview'])).toBe(1290);
    expect(ask(['gemini-2.0-flash-preview-image-generation'])).toBe(1290);
    expect(ask(['gemini-3-pro-image-preview'])).toBe(1120);
    expect(ask(['google/gemini-3.1-flash-image-preview'])).toBe(1120);
  });

  it('reads a Gemini request\'s imageSize (4K of gemini-3-pro-image is 2,000; an unknown size the largest)', () => {
    const sized = (size: string) => ({ generationConfig: { imageConfig: { imageSize: size } } });
    expect(ask(['gemini-3-pro-image-preview'], sized('2K'))).toBe(1120);
    expect(ask(['gemini-3-pro-image-preview'], sized('4K'))).toBe(2000);
    expect(ask(['gemini-3.1-flash-image-preview'], sized('4k'))).toBe(2520);
    expect(ask(['gemini-3.1-flash-image-preview'], sized('8K'))).toBe(2520);
    expect(ask(['gemini-3-pro-image-preview'], sized('4K'), 'openai-chat')).toBe(1120);
  });

  it('takes the dearest of the names the request may reach (a channel\'s mapping)', () => {
    expect(ask(['nano', 'gemini-2.5-flash-image'])).toBe(1290);
    expect(ask(['gemini-3-pro-image-preview', 'gemini-2.5-flash-image'])).toBe(1290);
  });

  it('a model named otherwise writes images when its price sets image_output or a Gemini request asks for IMAGE', () => {
    expect(ask(['painter'], {}, 'openai-chat', true)).toBe(1290);
    expect(ask(['painter'], { generationConfig: { responseModalities: ['TEXT', 'image'] } })).toBe(1290);
    expect(ask(['painter'], { generation_config: { response_modalities: ['IMAGE'] } })).toBe(1290);
  });

  it('is 0 for a model that writes no images', () => {
    expect(ask(['gemini-2.5-flash'])).toBe(0);
    expect(ask(['gpt-4o'], { generationConfig: { responseModalities: ['TEXT'] } })).toBe(0);
  });
});
