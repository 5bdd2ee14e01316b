import OpenAI, { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import type { ScriptedRequest } from '../fakes/scripted-upstream.js';
import { binaryImage, expectedCharge, imagesAnswer, useImagesFixture } from './images-fixture.js';

const f = useImagesFixture();

/** The form the upstream received, parsed by the platform's own multipart reader. */
async function upstreamForm(request: ScriptedRequest): Promise<FormData> {
  return new Response(request.rawBytes, { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
}

async function fileBytes(value: File | string | null): Promise<Buffer> {
  if (value === null || typeof value === 'string') throw new Error(`expected a file part, got ${String(value)}`);
  return Buffer.from(await value.arrayBuffer());
}

describe('POST /v1/images/edits with a multipart form (the openai SDK)', () => {
  it('a form that needs no change goes upstream byte for byte; binary files arrive intact', async () => {
    const image = binaryImage(1);
    const mask = binaryImage(2, 1024);
    f.img.enqueue({ json: imagesAnswer(2) });
    const [imageFile, maskFile] = await Promise.all([toFile(image, 'cat.png', { type: 'image/png' }), toFile(mask, 'mask.png', { type: 'image/png' })]);
    const { result, charge, log } = await f.charged(() =>
      f.client.images.edit({
        model: 'dall-e-2',
        image: imageFile,
        mask: maskFile,
        prompt: 'give the cat a hat',
        n: 2,
        size: '512x512',
      }),
    );
    expect(result.data).toHaveLength(2);
    const upstream = f.img.requests[0]!;
    expect(upstream.path).toBe('/v1/images/edits');
    expect(String(upstream.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const form = await upstreamForm(upstream);
    expect(await fileBytes(form.get('image'))).toEqual(image);
    expect(await fileBytes(form.get('mask'))).toEqual(mask);
    expect((form.get('image') as File).name).toBe('cat.png');
    expect(form.get('prompt')).toBe('give the cat a hat');
    expect(form.get('n')).toBe('2');
    expect(charge).toBe(expectedCharge('dall-e-2', { images: 2 }));
    expect(log).toMatchObject({ model: 'dall-e-2', style: 'openai-image-edits', status: 200, path: '/v1/images/edits' });
  });

  it('the client bytes are forwarded unchanged (same boundary, same length)', async () => {
    const form = new FormData();
    form.append('model', 'dall-e-2');
    form.append('prompt', 'recolour');
    form.append('image', new Blob([binaryImage(3)], { type: 'image/png' }), 'in.png');
    const encoded = new Response(form);
    const bytes = Buffer.from(await encoded.arrayBuffer());
    f.img.enqueue({ json: imagesAnswer(1) });
    const response = await f.post('/v1/images/edits', bytes, { 'content-type': encoded.headers.get('content-type')! });
    expect(response.status).toBe(200);
    expect(f.img.requests[0]!.rawBytes).toEqual(bytes);
    expect(f.img.requests[0]!.headers['content-type']).toBe(encoded.headers.get('content-type'));
  });

  it('a mapped model, n = 0 and several images: the form is re-encoded with the changes, files intact', async () => {
    const first = binaryImage(4);
    const second = binaryImage(5, 2048);
    f.img.enqueue({ json: imagesAnswer(1) });
    const files = await Promise.all([toFile(first, 'a.png', { type: 'image/png' }), toFile(second, 'b.webp', { type: 'image/webp' })]);
    const { charge, log } = await f.charged(() =>
      f.client.images.edit({
        model: 'img-alias',
        image: files,
        prompt: 'merge them',
        n: 0,
        quality: 'high',
      } as unknown as OpenAI.ImageEditParamsNonStreaming),
    );
    const form = await upstreamForm(f.img.requests[0]!);
    expect(form.get('model')).toBe('gpt-image-upstream');
    expect(form.getAll('model')).toHaveLength(1);
    expect(form.get('n')).toBe('1');
    expect(form.get('quality')).toBe('high');
    const images = form.getAll('image[]');
    expect(images).toHaveLength(2);
    expect(await fileBytes(images[0]!)).toEqual(first);
    expect(await fileBytes(images[1]!)).toEqual(second);
    expect((images[1] as File).name).toBe('b.webp');
    expect(charge).toBe(expectedCharge('img-alias', { images: 1 }));
    expect(log.upstream_model).toBe('gpt-image-upstream');
  });

  it('an edit that names no model is routed, priced and sent as dall-e-2', async () => {
    f.img.enqueue({ json: imagesAnswer(1) });
    const form = new FormData();
    form.append('prompt', 'no model named');
    form.append('image', new Blob([binaryImage(6)], { type: 'image/png' }), 'x.png');
    const { result, charge } = await f.charged(() => f.post('/v1/images/edits', form));
    expect(result.status).toBe(200);
    expect((await upstreamForm(f.img.requests[0]!)).get('model')).toBe('dall-e-2');
    expect(charge).toBe(expectedCharge('dall-e-2', { images: 1 }));
  });

  it('/v1/edits is the same route', async () => {
    f.img.enqueue({ json: imagesAnswer(1) });
    const form = new FormData();
    form.append('model', 'dall-e-2');
    form.append('prompt', 'same');
    form.append('image', new Blob([binaryImage(7)], { type: 'image/png' }), 'x.png');
    const { result, charge } = await f.charged(() => f.post('/v1/edits', form));
    expect(result.status).toBe(200);
    expect(f.img.requests[0]!.path).toBe('/v1/images/edits');
    expect(charge).toBe(expectedCharge('dall-e-2', { images: 1 }));
  });
});

describe('JSON edits', () => {
  it('gpt-image edits by URL pass through as JSON and are charged their usage', async () => {
    const usage = { input_tokens: 380, output_tokens: 1056, total_tokens: 1436, input_tokens_details: { text_tokens: 7, image_tokens: 373 } };
    f.img.enqueue({ json: imagesAnswer(1, { b64: true, usage }) });
    const body = JSON.stringify({ model: 'gpt-image-1', prompt: 'make it night', images: [{ image_url: 'https://example.com/day.png' }], quality: 'medium' });
    const { result, charge } = await f.charged(() => f.post('/v1/images/edits', body, { 'content-type': 'application/json' }));
    expect(result.status).toBe(200);
    expect(f.img.requests[0]!.rawBody).toBe(body);
    expect(f.img.requests[0]!.headers['content-type']).toBe('application/json');
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: 380, output: 1056 }));
  });
});

describe('edits refused before any upstream call, at no charge', () => {
  const form = (fields: Record<string, string>, withImage: boolean) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) data.append(name, value);
    if (withImage) data.append('image', new Blob([binaryImage(8)], { type: 'image/png' }), 'x.png');
    return data;
  };
  const cases: [string, FormData, string][] = [
    ['no image', form({ model: 'dall-e-2', prompt: 'x' }, false), 'image'],
    ['no prompt', form({ model: 'dall-e-2' }, true), 'prompt'],
    ['a dall-e-2 size it does not make', form({ model: 'dall-e-2', prompt: 'x', size: '1792x1024' }, true), 'size'],
    ['n that is not a number', form({ model: 'dall-e-2', prompt: 'x', n: 'two' }, true), 'n'],
    ['n above 10', form({ model: 'dall-e-2', prompt: 'x', n: '12' }, true), 'n'],
  ];
  it.each(cases)('%s → 400 naming the parameter', async (_name, data, param) => {
    const { result, charge } = await f.charged(() => f.post('/v1/images/edits', data));
    expect(result.status).toBe(400);
    const { error } = (await result.json()) as { error: { param: string; type: string } };
    expect(error).toMatchObject({ param, type: 'invalid_request_error' });
    expect(charge).toBe(0);
    expect(f.img.requests).toHaveLength(0);
  });

  it('a malformed multipart body → 400', async () => {
    const response = await f.post('/v1/images/edits', '--nope\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nx', { 'content-type': 'multipart/form-data; boundary=other' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/multipart/);
    expect(f.img.requests).toHaveLength(0);
  });

  it('a multipart form sent to a JSON route → 415', async () => {
    const response = await f.post('/v1/chat/completions', form({ model: 'dall-e-2', prompt: 'x' }, true));
    expect(response.status).toBe(415);
  });

  it('/v1/images/variations → 501, as new-api answers — after authentication: without a key, 401', async () => {
    const response = await f.post('/v1/images/variations', form({ model: 'dall-e-2' }, true));
    expect(response.status).toBe(501);
    expect(f.img.requests).toHaveLength(0);
    const anonymous = await fetch(`${f.gateway.url}/v1/images/variations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"dall-e-2"}' });
    expect(anonymous.status).toBe(401);
  });
});
