import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { expectedCharge, imagesAnswer, smallKey, smallKeyQuota, useImagesFixture } from './images-fixture.js';

const f = useImagesFixture();

describe('POST /v1/images/generations through the openai SDK', () => {
  it('relays the request byte for byte and the answer as received, charged per image', async () => {
    const answer = imagesAnswer(1, { revised: 'A tabby cat, watercolour' });
    f.img.enqueue({ json: answer });
    const request = { model: 'dall-e-3', prompt: 'a cat', size: '1024x1792', quality: 'hd', style: 'vivid', response_format: 'url', watermark: false } as const;
    const { result, charge, log } = await f.charged(() => f.client.images.generate(request as OpenAI.ImageGenerateParamsNonStreaming));
    expect(result).toEqual(answer);
    const upstream = f.img.requests[0]!;
    expect(upstream.path).toBe('/v1/images/generations');
    expect(upstream.headers.authorization).toBe('Bearer sk-up-img');
    expect(upstream.headers['content-type']).toBe('application/json');
    expect(upstream.rawBody).toBe(JSON.stringify(request));
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
    expect(log).toMatchObject({ model: 'dall-e-3', style: 'openai-images', status: 200, quota: charge, path: '/v1/images/generations' });
  });

  it('n missing or 0 asks for one image; n = 0 is sent upstream as 1', async () => {
    f.img.enqueue({ json: imagesAnswer(1) }, { json: imagesAnswer(1) });
    const missing = await f.charged(() => f.client.images.generate({ model: 'dall-e-2', prompt: 'a fox' }));
    const zero = await f.charged(() => f.client.images.generate({ model: 'dall-e-2', prompt: 'a fox', n: 0 }));
    expect(f.img.requests[0]!.body).toEqual({ model: 'dall-e-2', prompt: 'a fox' });
    expect(f.img.requests[1]!.body).toEqual({ model: 'dall-e-2', prompt: 'a fox', n: 1 });
    expect(missing.charge).toBe(expectedCharge('dall-e-2', { images: 1 }));
    expect(zero.charge).toBe(expectedCharge('dall-e-2', { images: 1 }));
  });

  it('charges the images delivered: n = 3 answered with 2 costs 2, with 0 costs nothing', async () => {
    f.img.enqueue({ json: imagesAnswer(2) }, { json: imagesAnswer(0) });
    const two = await f.charged(() => f.client.images.generate({ model: 'dall-e-2', prompt: 'three owls', n: 3 }));
    const none = await f.charged(() => f.client.images.generate({ model: 'dall-e-2', prompt: 'three owls', n: 3 }));
    expect(two.result.data).toHaveLength(2);
    expect(two.charge).toBe(expectedCharge('dall-e-2', { images: 2 }));
    expect(none.charge).toBe(0);
  });

  it('an answer with more images than asked for is charged for n', async () => {
    f.img.enqueue({ json: imagesAnswer(4) });
    const { charge } = await f.charged(() => f.client.images.generate({ model: 'dall-e-2', prompt: 'owls', n: 2 }));
    expect(charge).toBe(expectedCharge('dall-e-2', { images: 2 }));
  });

  it('response_format base64 is asked of the upstream as b64_json, and the Base64 comes back', async () => {
    const answer = imagesAnswer(1, { b64: true });
    f.img.enqueue({ json: answer });
    const response = await f.post('/v1/images/generations', JSON.stringify({ model: 'dall-e-3', prompt: 'a boat', response_format: 'base64' }), { 'content-type': 'application/json' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(answer);
    expect(f.img.requests[0]!.body).toEqual({ model: 'dall-e-3', prompt: 'a boat', response_format: 'b64_json' });
  });

  it('a token-priced model (gpt-image-1) is charged the usage it reports', async () => {
    const usage = { input_tokens: 57, output_tokens: 4160, total_tokens: 4217, input_tokens_details: { text_tokens: 57, image_tokens: 0 } };
    f.img.enqueue({ json: imagesAnswer(1, { b64: true, usage }) });
    const { result, charge, log } = await f.charged(() => f.client.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk', quality: 'high', size: '1536x1024' }));
    expect(result.usage).toEqual(usage);
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: 57, output: 4160 }));
    expect(log).toMatchObject({ input_tokens: 57, output_tokens: 4160, usage_source: 'upstream' });
  });

  it('maps the model for the channel and keeps every other field as sent', async () => {
    f.img.enqueue({ json: imagesAnswer(2) });
    const { charge, log } = await f.charged(() => f.client.images.generate({ model: 'img-alias', prompt: 'a map', n: 2, background: 'transparent', output_format: 'webp' } as OpenAI.ImageGenerateParamsNonStreaming));
    expect(f.img.requests[0]!.body).toEqual({ model: 'gpt-image-upstream', prompt: 'a map', n: 2, background: 'transparent', output_format: 'webp' });
    expect(charge).toBe(expectedCharge('img-alias', { images: 2 }));
    expect(log).toMatchObject({ model: 'img-alias', upstream_model: 'gpt-image-upstream' });
  });
});

describe('image requests refused before any upstream call, at no charge', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a dall-e-2 size it does not make', { model: 'dall-e-2', prompt: 'x', size: '1024x1792' }, 'size'],
    ['a dall-e-3 size it does not make', { model: 'dall-e-3', prompt: 'x', size: '256x256' }, 'size'],
    ['no prompt', { model: 'dall-e-3' }, 'prompt'],
    ['an empty prompt', { model: 'dall-e-3', prompt: '  ' }, 'prompt'],
    ['a prompt that is not text', { model: 'dall-e-3', prompt: ['x'] }, 'prompt'],
    ['no model', { prompt: 'x' }, 'model'],
    ['n above 10', { model: 'dall-e-2', prompt: 'x', n: 11 }, 'n'],
    ['n written as text', { model: 'dall-e-2', prompt: 'x', n: '2' }, 'n'],
    ['a fractional n', { model: 'dall-e-2', prompt: 'x', n: 1.5 }, 'n'],
    ['an unknown response_format', { model: 'dall-e-2', prompt: 'x', response_format: 'png' }, 'response_format'],
  ];
  it.each(cases)('%s → 400 naming the parameter', async (_name, body, param) => {
    const { error, charge } = await f.refused(() => f.client.images.generate(body as unknown as OpenAI.ImageGenerateParamsNonStreaming));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    expect(charge).toBe(0);
    expect(f.img.requests).toHaveLength(0);
  });

  it('sizes of other models are left to their upstream', async () => {
    f.img.enqueue({ json: imagesAnswer(1, { b64: true, usage: { input_tokens: 3, output_tokens: 272, total_tokens: 275, input_tokens_details: { text_tokens: 3, image_tokens: 0 } } }) });
    await f.client.images.generate({ model: 'gpt-image-1', prompt: 'x', size: '1536x1024' });
    expect(f.img.requests[0]!.body).toMatchObject({ size: '1536x1024' });
  });

  it('malformed JSON → 400 invalid_json; a multipart form → 415', async () => {
    const bad = await f.post('/v1/images/generations', '{"model":"dall-e-3",', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
    const form = new FormData();
    form.set('model', 'dall-e-3');
    form.set('prompt', 'x');
    const multipart = await f.post('/v1/images/generations', form);
    expect(multipart.status).toBe(415);
    expect(f.img.requests).toHaveLength(0);
  });

  it('a model only an Anthropic channel serves is not sent there', async () => {
    const { error, charge } = await f.refused(() => f.client.images.generate({ model: 'claude-only', prompt: 'x' }));
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect(charge).toBe(0);
    expect(f.claude.requests).toHaveLength(0);
  });

  it('a key that cannot cover n images gets 402 and the upstream is never called', async () => {
    const small = f.clientWith(smallKey);
    const { error } = await f.refused(() => small.images.generate({ model: 'dall-e-3', prompt: 'x', n: 3 }));
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect(f.img.requests).toHaveLength(0);
    f.img.enqueue({ json: imagesAnswer(2) });
    await small.images.generate({ model: 'dall-e-3', prompt: 'x', n: 2 });
    expect(await f.tokenUsed('small-key')).toBe(smallKeyQuota);
  });
});

describe('upstream failures', () => {
  it('an upstream 400 goes back to the client as sent and costs nothing', async () => {
    const upstreamError = { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', param: null, code: 'content_policy_violation' } };
    f.img.enqueue({ status: 400, json: upstreamError });
    const { error, charge } = await f.refused(() => f.client.images.generate({ model: 'dall-e-3', prompt: 'x' }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_policy_violation');
    expect(charge).toBe(0);
    expect(f.spare.requests).toHaveLength(0);
  });

  it('an upstream 500 fails over to the next channel, which serves and is the one charged', async () => {
    f.img.enqueue({ status: 500, json: { error: { message: 'boom', type: 'server_error' } } });
    f.spare.enqueue({ json: imagesAnswer(1) });
    const { result, charge, log } = await f.charged(() => f.client.images.generate({ model: 'dall-e-3', prompt: 'x' }).withResponse());
    expect(result.response.headers.get('x-relay-attempts')).toBe('2');
    expect(f.spare.requests[0]!.body).toEqual({ model: 'dall-e-3', prompt: 'x' });
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
    expect(log.status).toBe(200);
  });

  it('a connection reset before the answer fails over too; a reset on the last channel is a 502 at no charge', async () => {
    f.img.enqueue({ ending: 'reset' });
    f.spare.enqueue({ ending: 'reset' });
    const { error, charge } = await f.refused(() => f.client.images.generate({ model: 'dall-e-3', prompt: 'x' }));
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(charge).toBe(0);
  });
});
