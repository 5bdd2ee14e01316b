/** Streamed images (from the streamed-images audit; docs/behaviour.md "Images"): streamed images — relayed as they arrive, headers, the event size limit, aborts, form edits, concurrency. */
import { describe, expect, it } from 'vitest';
import { binaryImage, expectedCharge, smallKey, useImagesFixture } from './images-fixture.js';

const f = useImagesFixture();

const partialData = (b64: string) => ({ type: 'image_generation.partial_image', b64_json: b64, partial_image_index: 0 });
const partial = (b64 = 'QUJD'.repeat(1024)) => ({ event: 'image_generation.partial_image', data: partialData(b64) });
const completed = (type = 'image_generation') => ({ event: `${type}.completed`, data: { type: `${type}.completed`, b64_json: 'RElORQ==' } });
const gen = (body: Record<string, unknown>, key?: string, signal?: AbortSignal) =>
  fetch(`${f.gateway.url}/v1/images/generations`, { method: 'POST', signal, headers: { authorization: `Bearer ${key ?? (f as any).client.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ stream: true, ...body }) });
const drain = (response: Response) => response.text().catch((error: unknown) => `READ FAILED ${String(error)}`);

describe('relay shape', () => {
  it('headers: text/event-stream and x-request-id; first partial reaches the client before the upstream sends the completed one', async () => {
    f.img.enqueue({ sse: [partial(), completed()], delayMs: 800 });
    const started = Date.now();
    const response = await gen({ model: 'dall-e-3', prompt: 'x', partial_images: 1 });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const reader = response.body!.getReader();
    const first = await reader.read();
    const firstAt = Date.now() - started;
    expect(new TextDecoder().decode(first.value)).toContain('image_generation.partial_image');
    expect(firstAt).toBeLessThan(600);
    while (!(await reader.read()).done);
  });

  it('a partial image just under 8 MiB passes, whole', async () => {
    const overhead = 'data: '.length + JSON.stringify(partialData('')).length + 'event: image_generation.partial_image'.length;
    const b64 = 'A'.repeat(8 * 1024 * 1024 - overhead - 4);
    f.img.enqueue({ sse: [partial(b64), completed()] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', partial_images: 1 })));
    expect(result).toContain(b64);
    expect(result).not.toContain('stream_interrupted');
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('a partial image over 8 MiB after a completed image: error event, the completed image charged', async () => {
    f.img.enqueue({ sse: [completed(), partial('A'.repeat(9 * 1024 * 1024)), completed()] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', n: 2 })));
    expect(result).toContain('stream_interrupted');
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('a first event over 8 MiB: failover (nothing reached the client), charged once', async () => {
    f.img.enqueue({ sse: [partial('A'.repeat(9 * 1024 * 1024)), completed()] });
    f.spare.enqueue({ sse: [completed()] });
    const { result, charge } = await f.charged(async () => drain(await gen({ model: 'dall-e-3', prompt: 'x', partial_images: 1 })));
    expect(result).toContain('image_generation.completed');
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });
});

describe('client abort', () => {
  it('abort after one completed of two: one image charged', async () => {
    f.img.enqueue({ sse: [partial(), completed(), partial()], ending: 'hang' });
    const controller = new AbortController();
    const { charge } = await f.charged(async () => {
      const response = await gen({ model: 'dall-e-3', prompt: 'x', n: 2, partial_images: 1 }, undefined, controller.signal);
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('.completed')) text += new TextDecoder().decode((await reader.read()).value);
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('abort before any completed: nothing charged (per image); prompt only (token)', async () => {
    f.img.enqueue({ sse: [partial()], ending: 'hang' });
    const controller = new AbortController();
    const { charge } = await f.charged(async () => {
      const response = await gen({ model: 'dall-e-3', prompt: 'x', partial_images: 1 }, undefined, controller.signal);
      await response.body!.getReader().read();
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    expect(charge).toBe(0);
    f.reset();
    f.img.enqueue({ sse: [partial()], ending: 'hang' });
    const c2 = new AbortController();
    const t = await f.charged(async () => {
      const response = await gen({ model: 'gpt-image-1', prompt: 'x', partial_images: 1 }, undefined, c2.signal);
      await response.body!.getReader().read();
      c2.abort();
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    expect(t.log.output_tokens).toBe(0);
    expect(t.charge).toBe(expectedCharge('gpt-image-1', { input: Number(t.log.input_tokens) }));
  });
});

describe('form edit', () => {
  it('a multipart edit with stream=true streams and is charged per completed image', async () => {
    f.img.enqueue({ sse: [{ event: 'image_edit.partial_image', data: { type: 'image_edit.partial_image', b64_json: 'QUJD' } }, completed('image_edit')] });
    const form = new FormData();
    form.append('model', 'dall-e-2');
    form.append('prompt', 'edit');
    form.append('stream', 'true');
    form.append('partial_images', '1');
    form.append('image', new Blob([binaryImage(3)], { type: 'image/png' }), 'in.png');
    const { result, charge } = await f.charged(async () => {
      const response = await f.post('/v1/images/edits', form);
      return { type: response.headers.get('content-type'), body: await drain(response) };
    });
    expect(f.img.requests[0]?.headers.accept).toBe('text/event-stream');
    expect(result.type).toMatch(/^text\/event-stream/);
    expect(result.body).toContain('event: image_edit.completed');
    expect(charge).toBe(expectedCharge('dall-e-2', { images: 1 }));
  });
});

describe('concurrency', () => {
  it('a key that covers two dall-e-3 images: a second concurrent n=2 stream is refused 402 before any upstream call', async () => {
    f.img.enqueue({ sse: [completed()], delayMs: 300, ending: 'hang' }, { sse: [completed(), completed()] });
    const controller = new AbortController();
    const first = await gen({ model: 'dall-e-3', prompt: 'x', n: 2 }, smallKey, controller.signal);
    expect(first.status).toBe(200);
    const second = await gen({ model: 'dall-e-3', prompt: 'x', n: 2 }, smallKey);
    expect(second.status).toBe(402);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await f.gateway.settled();
    expect(f.img.requests).toHaveLength(1);
  });
});
