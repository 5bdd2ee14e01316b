/**
 * Gemini grounding is billed by the generation of the model that answers (docs/behaviour.md "Billing"): once
 * per grounded prompt on 2.x, per unique query on Gemini 3. The reservation followed the model the client
 * named, so `gemini-2.5-flash` on a channel that maps it to a Gemini 3 model reserved one search where the
 * upstream may bill five: a key that could pay for one was served, and the rest taken only as far as its
 * balance went. Now each Gemini channel that could serve is asked what it sends.
 */
import { GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const callerKey = `sk-${'g'.repeat(48)}`;
/** $3 / $15 per 1M tokens, $0.014 a search; at 500,000 quota per unit a search is 7,000. */
const price = { input: 3, output: 15, web_search: 0.014 };
const perSearch = 7_000;

let gateway: TestGateway | undefined;
let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

/** A gateway whose one Gemini channel serves `gemini-2.5-flash` as `sentAs`, and a key holding `quota`. */
async function start(sentAs: string, quota: number): Promise<GoogleGenAI> {
  upstream = await startScriptedUpstream();
  upstream.setFallback({
    crlf: true,
    sse: [{ data: { candidates: [{ content: { role: 'model', parts: [{ text: 'Sunny.' }] }, finishReason: 'STOP', index: 0 }], modelVersion: sentAs, usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 } } }],
  });
  gateway = await startTestGateway({
    config: {
      prices: { 'gemini-2.5-flash': price },
      channels: [{ name: 'gemini', type: 'gemini', base_url: upstream.url, key: 'up-key', models: ['gemini-2.5-flash'], groups: ['default'], priority: 0, weight: 1, model_mapping: { 'gemini-2.5-flash': sentAs }, enabled: true, auto_disable: false, settings: {} }],
      tokens: [{ name: 'caller', key: callerKey, quota, expires_at: 0, enabled: true }],
    },
  });
  return new GoogleGenAI({ apiKey: callerKey, httpOptions: { baseUrl: gateway.url } });
}

const grounded = (gemini: GoogleGenAI) =>
  gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Weather in Paris?', config: { maxOutputTokens: 16, tools: [{ googleSearch: {} }] } }).then(
    () => 200,
    (error: { status?: number }) => error.status,
  );

describe('a grounded request reserves the searches of the model its channel sends', () => {
  it('gemini-2.5-flash mapped to a Gemini 3 model: a key that covers one search but not five is refused 402, before any upstream call', async () => {
    const gemini = await start('gemini-3-pro-preview', 2 * perSearch);
    expect(await grounded(gemini)).toBe(402);
    expect(upstream!.requests).toHaveLength(0);
  });

  it('gemini-2.5-flash sent as itself: the same key is served (a 2.x answer is billed one search)', async () => {
    const gemini = await start('gemini-2.5-flash', 2 * perSearch);
    expect(await grounded(gemini)).toBe(200);
    expect(upstream!.requests).toHaveLength(1);
  });
});
