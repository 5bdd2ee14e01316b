/**
 * Multipart image edits (`/v1/images/edits`, the openai SDK's form) and `/v1/images/variations`
 * with every text field × every hostile value (as form text), the image missing / as text / not an image,
 * checked fields sent as file parts, huge `n`. Bar: check-raw.ts (checkCase for forms).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PNG } from './type-confusion-cases.js';
import { checkRaw } from './type-confusion-cases.js';
import { keys, m, startMoreRoutesFixture, type MoreRoutesFixture } from './more-routes-fixture.js';

const png = Buffer.from(PNG, 'base64');
const deepText = `${'['.repeat(100)}${']'.repeat(100)}`;
const hostileTexts: Array<[string, string]> = [
  ['null', 'null'], ['0', '0'], ['-1', '-1'], ['1e308', '1e308'], ['""', ''], ['"x"', 'x'], ['true', 'true'], ['[]', '[]'], ['{}', '{}'], ['[null]', '[null]'], ['deep100', deepText], ['1MB', 'x'.repeat(1_048_576)],
  ['huge n', '99999999999999999999'], ['1.5', '1.5'], [' 1', ' 1'], ['0x5', '0x5'], ['11', '11'], ['nul byte', 'a\u0000b'],
];

type Part = [name: string, value: string | Blob, fileName?: string];
const baseParts = (model: string): Part[] => [
  ['model', model],
  ['prompt', 'a hat'],
  ['n', '1'],
  ['size', '1024x1024'],
  ['response_format', 'url'],
  ['image', new Blob([png], { type: 'image/png' }), 'cat.png'],
];

function formOf(parts: Part[]): FormData {
  const form = new FormData();
  for (const [name, value, fileName] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, fileName ?? 'file.bin');
  }
  return form;
}

function replace(parts: Part[], name: string, value: string | Blob | undefined, fileName?: string): Part[] {
  const out = parts.filter(([n]) => n !== name);
  if (value !== undefined) out.push([name, value, fileName]);
  return out;
}

interface FormCase { name: string; path: string; parts: Part[] }
const cases: FormCase[] = [];
for (const model of [m.dalle2, m.gptImage, m.seedream]) {
  const base = baseParts(model);
  cases.push({ name: `${model} valid`, path: '/v1/images/edits', parts: base });
  for (const field of ['model', 'prompt', 'n', 'size', 'response_format', 'stream', 'quality', 'mask', 'user', 'background', 'sequential_image_generation', 'image']) {
    for (const [label, text] of hostileTexts) cases.push({ name: `${model} ${field} = ${label}`, path: '/v1/images/edits', parts: replace(base, field, text) });
  }
  cases.push({ name: `${model} image missing`, path: '/v1/images/edits', parts: replace(base, 'image', undefined) });
  cases.push({ name: `${model} image is a text file`, path: '/v1/images/edits', parts: replace(base, 'image', new Blob(['hello'], { type: 'text/plain' }), 'a.txt') });
  cases.push({ name: `${model} image is an empty file`, path: '/v1/images/edits', parts: replace(base, 'image', new Blob([], { type: 'image/png' }), 'a.png') });
  cases.push({ name: `${model} image[] ×40`, path: '/v1/images/edits', parts: [...replace(base, 'image', undefined), ...Array.from({ length: 40 }, (): Part => ['image[]', new Blob([png], { type: 'image/png' }), 'a.png'])] });
  cases.push({ name: `${model} only a mask file`, path: '/v1/images/edits', parts: [...replace(base, 'image', undefined), ['mask', new Blob([png], { type: 'image/png' }), 'm.png']] });
  for (const field of ['prompt', 'model', 'n', 'size']) {
    cases.push({ name: `${model} ${field} as a file only`, path: '/v1/images/edits', parts: replace(base, field, new Blob(['10'], { type: 'text/plain' }), `${field}.txt`) });
  }
  cases.push({ name: `${model} seedream group in a form`, path: '/v1/images/edits', parts: [...base, ['sequential_image_generation', 'auto'], ['sequential_image_generation_options', '{"max_images":99}']] });
}
for (const parts of [baseParts(m.dalle2), [] as Part[]]) {
  cases.push({ name: `variations form (${parts.length} parts)`, path: '/v1/images/variations', parts });
}

let fixture: MoreRoutesFixture;
beforeAll(async () => {
  fixture = await startMoreRoutesFixture();
});
beforeEach(async () => {
  const { db } = fixture.gateway.gateway.services.database;
  await fixture.gateway.settled();
  await db.updateTable('tokens').set({ remain_quota: 100_000_000 }).where('name', '=', 'good').execute();
  await db.updateTable('users').set({ quota: 1_000_000_000 }).where('username', '=', 'alice').execute();
});
afterAll(async () => {
  await fixture?.close();
});

describe('multipart image edits: every form field × hostile text', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { sent } = await checkRaw(fixture, { path: c.path, style: 'openai', body: formOf(c.parts) }, keys.good);
    if (process.env.FUZZ_LOG) (await import('node:fs')).appendFileSync(process.env.FUZZ_LOG, `${JSON.stringify({ name: c.name, status: sent.status, text: sent.text.slice(0, 200) })}\n`);
    if (c.path === '/v1/images/variations') expect(sent.status).toBe(501);
  });

  it('variations: JSON body, no body, no key', async () => {
    expect((await checkRaw(fixture, { path: '/v1/images/variations', style: 'openai', body: '{"image":1}', headers: { 'content-type': 'application/json' } }, keys.good)).sent.status).toBe(501);
    expect((await checkRaw(fixture, { path: '/v1/images/variations', style: 'openai' }, keys.good)).sent.status).toBe(501);
    expect((await checkRaw(fixture, { path: '/v1/images/variations', style: 'openai', key: null, body: formOf(baseParts(m.dalle2)) }, keys.good)).sent.status).toBe(401);
  });
});
