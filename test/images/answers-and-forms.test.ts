import { describe, expect, it } from 'vitest';
import { binaryImage, expectedCharge, gptImagePerImageBudget, imagesAnswer, smallKey, smallKeyQuota, useImagesFixture } from './images-fixture.js';

/** From the images audit: odd answers, money under concurrency and failover, and forms as other clients write them. */
const f = useImagesFixture();

/** A hand-written multipart body, so a field can be repeated or a boundary quoted. */
function multipart(boundary: string, parts: { name: string; value: string | Buffer; filename?: string; type?: string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.type === undefined ? '' : `\r\nContent-Type: ${part.type}`;
    chunks.push(Buffer.from(`--${boundary}\r\n${disposition}${type}\r\n\r\n`), Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
const png = (seed: number) => ({ name: 'image', value: binaryImage(seed, 256), filename: 'in.png', type: 'image/png' });
const postForm = (body: Buffer, boundary: string) => f.post('/v1/images/edits', body, { 'content-type': `multipart/form-data; boundary=${boundary}` });

describe('what an answer costs', () => {
  it('an HTTP 200 that is an error document (no data) costs nothing, and reaches the client as sent', async () => {
    const refusal = { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', code: 'content_policy_violation' } };
    f.img.enqueue({ json: refusal });
    const { result, charge } = await f.charged(async () => (await f.post('/v1/images/generations', JSON.stringify({ model: 'dall-e-3', prompt: 'x' }), { 'content-type': 'application/json' })).json());
    expect(result).toEqual(refusal);
    expect(charge).toBe(0);
  });

  it('gpt-image without usage: the prompt counted locally plus the output budget per delivered image', async () => {
    f.img.enqueue({ json: imagesAnswer(2, { b64: true }) });
    const budget = gptImagePerImageBudget(f);
    const { charge, log } = await f.charged(() => f.client.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk', n: 2 }));
    expect(log).toMatchObject({ usage_source: 'local', output_tokens: 2 * budget });
    expect(charge).toBe(expectedCharge('gpt-image-1', { input: log.input_tokens, output: 2 * budget }));
  });

  it('a 200 whose body is cut, then a failover that serves: charged once, for the images delivered', async () => {
    const whole = JSON.stringify(imagesAnswer(3));
    f.img.enqueue({ status: 200, headers: { 'content-type': 'application/json' }, raw: [whole.slice(0, 40)], ending: 'reset' });
    f.spare.enqueue({ json: imagesAnswer(1) });
    const { result, charge } = await f.charged(() => f.client.images.generate({ model: 'dall-e-3', prompt: 'x', n: 3 }));
    expect(result.data).toHaveLength(1);
    expect(charge).toBe(expectedCharge('dall-e-3', { images: 1 }));
  });

  it('8 parallel n = 2 requests on a key that covers 2 images: one is served, the key never goes over', async () => {
    const small = f.clientWith(smallKey);
    const usedBefore = await f.tokenUsed('small-key');
    f.img.setFallback({ json: imagesAnswer(2), endDelayMs: 150 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => small.images.generate({ model: 'dall-e-3', prompt: 'x', n: 2 })));
    f.img.setFallback(undefined);
    const served = results.filter((result) => result.status === 'fulfilled').length;
    const used = (await f.tokenUsed('small-key')) - usedBefore;
    expect(served).toBe(1);
    expect(used).toBe(expectedCharge('dall-e-3', { images: 2 }));
    expect(usedBefore + used).toBeLessThanOrEqual(smallKeyQuota);
    expect(f.img.requests).toHaveLength(1);
  });
});

describe('forms', () => {
  it.each(['n', 'model', 'prompt', 'size', 'quality'])('%s given twice → 400 naming it, nothing sent upstream (the request priced must be the one served)', async (field) => {
    const values: Record<string, [string, string]> = { n: ['1', '10'], model: ['dall-e-2', 'gpt-image-1'], prompt: ['a', 'b'], size: ['256x256', '1024x1024'], quality: ['low', 'high'] };
    const base = { model: 'dall-e-2', prompt: 'hat' } as Record<string, string>;
    const parts = Object.entries(base).filter(([name]) => name !== field).map(([name, value]) => ({ name, value }));
    const [first, second] = values[field]!;
    const boundary = `twice-${field}`;
    const response = await postForm(multipart(boundary, [...parts, { name: field, value: first }, { name: field, value: second }, png(1)]), boundary);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe(field);
    expect(f.img.requests).toHaveLength(0);
  });

  it.each(['True', '1', 'on', 'yes'])('stream=%s in a form streams the partial images like stream=true', async (spelling) => {
    f.img.enqueue({ sse: [{ event: 'image_edit.completed', data: { type: 'image_edit.completed', b64_json: 'AAAA', usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } } }] });
    const boundary = `stream-${spelling}`;
    const response = await postForm(multipart(boundary, [{ name: 'model', value: 'gpt-image-1' }, { name: 'prompt', value: 'hat' }, { name: 'stream', value: spelling }, png(2)]), boundary);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toContain('event: image_edit.completed\n');
    expect(f.img.requests).toHaveLength(1);
  });

  it('stream=false and stream=0 are not streams', async () => {
    f.img.enqueue({ json: imagesAnswer(1) }, { json: imagesAnswer(1) });
    for (const spelling of ['false', '0']) {
      const boundary = `no-stream-${spelling}`;
      const response = await postForm(multipart(boundary, [{ name: 'model', value: 'dall-e-2' }, { name: 'prompt', value: 'hat' }, { name: 'stream', value: spelling }, png(3)]), boundary);
      expect(response.status).toBe(200);
    }
  });

  it('a form as .NET MultipartFormDataContent writes it (unquoted names, filename*) is served byte for byte', async () => {
    const boundary = '4b39ed14-752b-480a-9846-fc0019132d15';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: form-data; name=model\r\n\r\ndall-e-2\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: form-data; name=prompt\r\n\r\nadd a hat\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Type: image/png\r\nContent-Disposition: form-data; name=image; filename=in.png; filename*=utf-8''in.png\r\n\r\n`),
      binaryImage(9, 128),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    f.img.enqueue({ json: imagesAnswer(1) });
    const response = await f.post('/v1/images/edits', body, { 'content-type': `multipart/form-data; boundary="${boundary}"` });
    expect(response.status).toBe(200);
    expect(f.img.requests[0]!.rawBytes).toEqual(body);
  });

  it('quoted boundaries, a charset before the boundary and an upper-case media type are read and forwarded untouched', async () => {
    for (const [contentType, boundary] of [['multipart/form-data; boundary="a:b=c"', 'a:b=c'], ['multipart/form-data; charset=utf-8; boundary=cs', 'cs'], ['Multipart/Form-Data; boundary=up', 'up']] as const) {
      const body = multipart(boundary, [{ name: 'model', value: 'dall-e-2' }, { name: 'prompt', value: 'hat' }, png(4)]);
      f.img.enqueue({ json: imagesAnswer(1) });
      const response = await f.post('/v1/images/edits', body, { 'content-type': contentType });
      expect(response.status).toBe(200);
      expect(f.img.requests.at(-1)!.rawBytes).toEqual(body);
    }
  });

  it('a form over max_body_mb → 413 before any upstream call', async () => {
    const body = multipart('big', [{ name: 'model', value: 'dall-e-2' }, { name: 'prompt', value: 'hat' }, { name: 'image', value: Buffer.alloc(65 * 1024 * 1024, 1), filename: 'big.png', type: 'image/png' }]);
    const response = await postForm(body, 'big');
    expect(response.status).toBe(413);
    expect(f.img.requests).toHaveLength(0);
  });
});
