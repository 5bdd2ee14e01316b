/**
 * From the Gemini image audit: Gemini-native image generation (spec §4.5 Gemini native image case,
 * protocols.md §7) and Gemini native embeddings, with real model names on one Gemini channel and one Chat
 * channel and scripted upstreams: `imageSize` 2K of a 1K-only model sent as 1K; per-call and token prices
 * of image answers; large inline images (1 MiB, 9 MiB) relayed intact whole and streamed; bad input refused
 * before any upstream call; embeddings billed locally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { readAnswer } from '../support/read-answer.js';

const key = `sk-${'g'.repeat(48)}`;
const flash = 'gemini-2.5-flash-image-preview';
const flash31 = 'gemini-3.1-flash-image-preview';
const pro = 'gemini-3-pro-image-preview';
const embed = 'gemini-embedding-001';
// $ per 1M tokens; quota_per_unit 500 000 → 1 token at 0.3 $/M is 0.15 units, at 30 $/M 15 units.
const tokenPrice = { input: 0.3, output: 30 };
const proPerCall = 0.134; // → 67 000 units a call

let gemini: ScriptedUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  gemini = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      prices: { [flash]: tokenPrice, [flash31]: tokenPrice, [pro]: { per_call: proPerCall }, [embed]: { input: 0.15 } },
      channels: [
        { name: 'gem', type: 'gemini', base_url: gemini.url, key: 'up', models: [flash, flash31, pro, embed], groups: ['default'], priority: 10, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} },
      ],
      users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 100_000_000 }],
      tokens: [{ name: 'payer-key', user: 'payer', key, expires_at: 0, enabled: true, quota: 100_000_000 }],
    } as any,
  });
});
afterAll(async () => {
  await gateway?.close();
  await gemini?.close();
});

const db = () => gateway.gateway.services.database.db;
async function used(): Promise<number> {
  await gateway.settled();
  const row = await db().selectFrom('tokens').select(['used_quota']).where('name', '=', 'payer-key').executeTakeFirstOrThrow();
  return Number(row.used_quota);
}
async function lastReservation(): Promise<{ amount: number; settled: number | null }> {
  await gateway.settled();
  const rows = await db().selectFrom('quota_reservations').select(['amount', 'settled_amount', 'created_at']).orderBy('created_at').execute();
  const row = rows.at(-1)!;
  return { amount: Number(row.amount), settled: row.settled_amount === null ? null : Number(row.settled_amount) };
}
async function call(path: string, body: unknown) {
  const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': key }, body: JSON.stringify(body) });
  return readAnswer(response);
}

/** A Gemini image answer as Google streams it: text first, then the whole image in one event, usage with an IMAGE entry. */
function imageAnswer(data: string, usage = { promptTokenCount: 12, candidatesTokenCount: 1295, totalTokenCount: 1307, candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: 1290 }, { modality: 'TEXT', tokenCount: 5 }] }) {
  const frame = (parts: unknown[], finish?: string) => ({
    data: { candidates: [{ content: { parts, role: 'model' }, ...(finish ? { finishReason: finish } : {}), index: 0 }], usageMetadata: usage, modelVersion: 'gemini-2.5-flash-image', responseId: 'img1' },
  });
  return { sse: [frame([{ text: 'Here it is' }]), frame([{ inlineData: { mimeType: 'image/png', data } }], 'STOP')], crlf: true };
}

const prompt = (extra: Record<string, unknown> = {}) => ({ contents: [{ role: 'user', parts: [{ text: 'A red bicycle' }] }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'], ...extra } });

describe('imageConfig.imageSize 2K (spec §4.5: only gemini-3-pro-image-preview supports 2K; the others fall back to 1K)', () => {
  it.each([flash, flash31])('%s: 2K reaches the upstream as 1K', async (model) => {
    gemini.enqueue(imageAnswer('AAAA'));
    const answer = await call(`/v1beta/models/${model}:generateContent`, prompt({ imageConfig: { aspectRatio: '16:9', imageSize: '2K' } }));
    expect(answer.status).toBe(200);
    const sent = gemini.requests.at(-1)!.body;
    expect(sent.generationConfig.imageConfig).toEqual({ aspectRatio: '16:9', imageSize: '1K' });
  });

  it('gemini-3-pro-image-preview keeps 2K (control)', async () => {
    gemini.enqueue(imageAnswer('AAAA'));
    const answer = await call(`/v1beta/models/${pro}:generateContent`, prompt({ imageConfig: { aspectRatio: '16:9', imageSize: '2K' } }));
    expect(answer.status).toBe(200);
    expect(gemini.requests.at(-1)!.body.generationConfig.imageConfig).toEqual({ aspectRatio: '16:9', imageSize: '2K' });
  });
});

describe('billing of image answers on the Gemini route', () => {
  it('per-call price honoured for gemini-3-pro-image-preview (whole and streamed), IMAGE tokens not billed on top', async () => {
    gemini.enqueue(imageAnswer('AAAA'));
    let before = await used();
    expect((await call(`/v1beta/models/${pro}:generateContent`, prompt())).status).toBe(200);
    expect((await used()) - before).toBe(67_000);
    gemini.enqueue(imageAnswer('AAAA'));
    before = await used();
    expect((await call(`/v1beta/models/${pro}:streamGenerateContent?alt=sse`, prompt())).status).toBe(200);
    expect((await used()) - before).toBe(67_000);
  });

  it('token price: IMAGE output tokens billed as output (12 in × 0.15 + 1295 out × 15)', async () => {
    gemini.enqueue(imageAnswer('AAAA'));
    const before = await used();
    expect((await call(`/v1beta/models/${flash}:generateContent`, prompt())).status).toBe(200);
    expect((await used()) - before).toBe(Math.round(12 * 0.15 + 1295 * 15));
    const reservation = await lastReservation();
    // Reserved output budget (default 4096) must cover the 1290-token image.
    expect(reservation.amount).toBeGreaterThanOrEqual(reservation.settled!);
  });

  it('a user-turn reference image (inlineData) is counted in the reservation estimate (control)', async () => {
    gemini.enqueue(imageAnswer('AAAA'));
    await call(`/v1beta/models/${flash}:generateContent`, prompt());
    const plain = (await lastReservation()).amount;
    gemini.enqueue(imageAnswer('AAAA'));
    const ref = { inlineData: { mimeType: 'image/png', data: Buffer.alloc(30_000, 1).toString('base64') } };
    await call(`/v1beta/models/${flash}:generateContent`, { ...prompt(), contents: [{ role: 'user', parts: [{ text: 'A red bicycle' }, ref] }] });
    expect((await lastReservation()).amount - plain).toBeGreaterThanOrEqual(150);
  });

  it('a model-turn image (the earlier output sent back to edit) is counted in the reservation estimate as a user-turn one is', async () => {
    const ref = { inlineData: { mimeType: 'image/png', data: Buffer.alloc(30_000, 1).toString('base64') } };
    const turns = (image: boolean) => [
      { role: 'user', parts: [{ text: 'A red bicycle' }] },
      { role: 'model', parts: image ? [{ text: 'Here it is.' }, ref] : [{ text: 'Here it is.' }] },
      { role: 'user', parts: [{ text: 'Make it blue' }] },
    ];
    gemini.enqueue(imageAnswer('AAAA'));
    await call(`/v1beta/models/${flash}:generateContent`, { ...prompt(), contents: turns(false) });
    const without = (await lastReservation()).amount;
    gemini.enqueue(imageAnswer('AAAA'));
    await call(`/v1beta/models/${flash}:generateContent`, { ...prompt(), contents: turns(true) });
    expect((await lastReservation()).amount - without).toBeGreaterThanOrEqual(150);
  });
});

describe('inline image data relayed intact', () => {
  const mib = (n: number) => Buffer.alloc(Math.floor((n * 1024 * 1024 * 3) / 4), 9).toString('base64');

  it('a 1 MiB image, whole and streamed', async () => {
    const data = mib(1);
    gemini.enqueue(imageAnswer(data));
    const whole = await call(`/v1beta/models/${flash}:generateContent`, prompt());
    expect(whole.status).toBe(200);
    expect(whole.json.candidates[0].content.parts.find((p: any) => p.inlineData)?.inlineData.data).toBe(data);
    gemini.enqueue(imageAnswer(data));
    const streamed = await call(`/v1beta/models/${flash}:streamGenerateContent?alt=sse`, prompt());
    expect(streamed.status).toBe(200);
    expect(streamed.text.includes(data)).toBe(true);
  });

  it('a 9 MiB image (base64 of a 4K PNG) to a non-streaming client: whole answers are bounded at 64 MiB, so it arrives intact', async () => {
    const data = mib(9);
    gemini.enqueue(imageAnswer(data));
    const before = await used();
    const whole = await call(`/v1beta/models/${pro}:generateContent`, prompt({ imageConfig: { imageSize: '4K' } }));
    const charged = (await used()) - before;
    expect({ status: whole.status, intact: whole.json?.candidates?.[0]?.content?.parts?.find((p: any) => p.inlineData)?.inlineData?.data === data, charged }).toEqual({ status: 200, intact: true, charged: 67_000 });
  }, 30_000);
});

describe('bad input refused before any upstream call', () => {
  it.each([
    ['contents missing', { generationConfig: { responseModalities: ['IMAGE'] } }],
    ['contents a string', { contents: 'draw a cat' }],
    ['inlineData.data a number', { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 42 } }] }] }],
    ['inlineData without mimeType', { contents: [{ role: 'user', parts: [{ inlineData: { data: 'AAAA' } }] }] }],
    ['parts a string', { contents: [{ role: 'user', parts: 'draw' }] }],
  ])('%s → 400, no upstream call', async (_name, body) => {
    const calls = gemini.requests.length;
    const answer = await call(`/v1beta/models/${flash}:generateContent`, body);
    expect({ status: answer.status, upstream: gemini.requests.length - calls }).toEqual({ status: 400, upstream: 0 });
  });
});

describe('Gemini native embeddings', () => {
  it('batchEmbedContents: no usage from Google, the texts billed locally at the input price', async () => {
    gemini.enqueue({ json: { embeddings: [{ values: [0.1] }, { values: [0.2] }] } });
    const before = await used();
    const answer = await call(`/v1beta/models/${embed}:batchEmbedContents`, { requests: [{ model: `models/${embed}`, content: { parts: [{ text: 'hello world' }] } }, { model: `models/${embed}`, content: { parts: [{ text: 'hello world' }] } }] });
    expect(answer.status).toBe(200);
    const charged = (await used()) - before;
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThan(10);
  });

  it.each([
    ['embedContent without content', 'embedContent', {}],
    ['batch with empty requests', 'batchEmbedContents', { requests: [] }],
    ['embedContent parts not objects', 'embedContent', { content: { parts: ['hello'] } }],
  ])('%s → 400, no upstream call', async (_name, action, body) => {
    const calls = gemini.requests.length;
    const answer = await call(`/v1beta/models/${embed}:${action}`, body);
    expect({ status: answer.status, upstream: gemini.requests.length - calls }).toEqual({ status: 400, upstream: 0 });
  });
});

describe('an image event over the 8 MiB stream event bound', () => {
  const data = Buffer.alloc(Math.floor((9 * 1024 * 1024 * 3) / 4), 9).toString('base64');
  it('streaming client: a Gemini event is bounded as a whole answer is (64 MiB), so the 9 MiB image reaches it, charged once', async () => {
    gemini.enqueue(imageAnswer(data));
    const before = await used();
    const streamed = await call(`/v1beta/models/${pro}:streamGenerateContent?alt=sse`, prompt({ imageConfig: { imageSize: '4K' } }));
    const charged = (await used()) - before;
    expect({ status: streamed.status, got: streamed.text.includes(data), charged }).toEqual({ status: 200, got: true, charged: 67_000 });
  }, 30_000);
});

