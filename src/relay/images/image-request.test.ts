import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { readImageRequest } from './image-request.js';

function refusal(run: () => unknown): { param: string | undefined; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return { param: error.param, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('readImageRequest', () => {
  it('reads model, prompt and the image count; n missing or 0 is one image, and 0 is rewritten', () => {
    expect(readImageRequest('generation', { model: 'm', prompt: 'p' }, false)).toEqual({ model: 'm', prompt: 'p', images: 1, tokensPerReferenceImage: 1000, stream: false, rewrites: {} });
    expect(readImageRequest('generation', { model: 'm', prompt: 'p', n: 0 }, false)).toEqual({ model: 'm', prompt: 'p', images: 1, tokensPerReferenceImage: 1000, stream: false, rewrites: { n: 1 } });
    expect(readImageRequest('generation', { model: 'm', prompt: 'p', n: 10 }, false).images).toBe(10);
    expect(readImageRequest('edit', { model: 'm', prompt: 'p', n: '4' }, true).images).toBe(4);
  });

  it('form text for n is read only from a form', () => {
    expect(refusal(() => readImageRequest('generation', { model: 'm', prompt: 'p', n: '4' }, false)).param).toBe('n');
    expect(refusal(() => readImageRequest('edit', { model: 'm', prompt: 'p', n: '4.0' }, true)).param).toBe('n');
    expect(refusal(() => readImageRequest('edit', { model: 'm', prompt: 'p', n: '11' }, true)).param).toBe('n');
    expect(refusal(() => readImageRequest('edit', { model: 'm', prompt: 'p', n: '-1' }, true)).param).toBe('n');
  });

  it('validates the sizes of dall-e-2 and dall-e-3 only', () => {
    expect(refusal(() => readImageRequest('generation', { model: 'dall-e-3', prompt: 'p', size: '512x512' }, false))).toEqual({
      param: 'size',
      message: "Invalid 'size': '512x512' is not one of ['1024x1024', '1024x1792', '1792x1024'] for dall-e-3.",
    });
    expect(readImageRequest('generation', { model: 'dall-e-2', prompt: 'p', size: '256x256' }, false).images).toBe(1);
    expect(readImageRequest('generation', { model: 'seedream', prompt: 'p', size: '2560x1440' }, false).images).toBe(1);
    expect(refusal(() => readImageRequest('generation', { model: 'seedream', prompt: 'p', size: 1024 }, false)).param).toBe('size');
  });

  it('base64 is asked of the upstream as b64_json; url and b64_json pass as sent', () => {
    expect(readImageRequest('generation', { model: 'm', prompt: 'p', response_format: 'base64' }, false).rewrites).toEqual({ response_format: 'b64_json' });
    expect(readImageRequest('generation', { model: 'm', prompt: 'p', response_format: 'b64_json' }, false).rewrites).toEqual({});
    expect(readImageRequest('generation', { model: 'm', prompt: 'p', response_format: 'url' }, false).rewrites).toEqual({});
  });

  it('an edit without a model is dall-e-2; a generation without one is refused', () => {
    expect(readImageRequest('edit', { prompt: 'p' }, true).model).toBe('dall-e-2');
    expect(refusal(() => readImageRequest('generation', { prompt: 'p' }, false))).toEqual({ param: 'model', message: "Missing required parameter: 'model'." });
    expect(refusal(() => readImageRequest('generation', { model: '', prompt: 'p' }, false)).param).toBe('model');
  });

  it('refuses a missing, empty or non-text prompt', () => {
    expect(refusal(() => readImageRequest('generation', { model: 'm' }, false))).toEqual({ param: 'prompt', message: "Missing required parameter: 'prompt'." });
    expect(refusal(() => readImageRequest('generation', { model: 'm', prompt: '\n ' }, false)).param).toBe('prompt');
    expect(refusal(() => readImageRequest('generation', { model: 'm', prompt: 3 }, false)).message).toBe("Invalid 'prompt': Expected string, received number");
  });

  it('reads a streamed request in any spelling of true', () => {
    expect(readImageRequest('generation', { model: 'm', prompt: 'p', stream: true }, false).stream).toBe(true);
    expect(readImageRequest('edit', { model: 'm', prompt: 'p', stream: 'true' }, true).stream).toBe(true);
    expect(readImageRequest('generation', { model: 'm', prompt: 'p', stream: false }, false).stream).toBe(false);
    expect(readImageRequest('generation', { model: 'm', prompt: 'p' }, false).stream).toBe(false);
  });

  it('reserves a GPT-image reference image at high fidelity (OpenAI\'s larger surcharge, 6,240) only when input_fidelity is high', () => {
    const perImage = (fields: Record<string, unknown>) => readImageRequest('edit', { prompt: 'p', ...fields }, true).tokensPerReferenceImage;
    expect(perImage({ model: 'gpt-image-1', input_fidelity: 'high' })).toBe(1000 + 6240);
    expect(perImage({ model: 'gpt-image-1.5', input_fidelity: 'High' })).toBe(1000 + 6240);
    expect(perImage({ model: 'gpt-image-1', input_fidelity: 'low' })).toBe(1000);
    expect(perImage({ model: 'gpt-image-1' })).toBe(1000);
    expect(perImage({ model: 'dall-e-2', input_fidelity: 'high' })).toBe(1000);
  });
});
