import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { LogEntry } from '../../src/storage/logs-repository.js';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream.js';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from '../fakes/fake-gemini-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

export const crossKey = `sk-${'x'.repeat(48)}`;

/** One model per channel type, so the model name picks the upstream style. */
export const models = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash' } as const;
export type UpstreamKind = keyof typeof models;

export interface CrossStyleFixture {
  gateway: TestGateway;
  openaiUpstream: FakeOpenaiUpstream;
  anthropicUpstream: FakeAnthropicUpstream;
  geminiUpstream: FakeGeminiUpstream;
  openai: OpenAI;
  anthropic: Anthropic;
  gemini: GoogleGenAI;
  lastLog(): Promise<LogEntry>;
  close(): Promise<void>;
}

/** Three fake upstreams (OpenAI, Anthropic, Gemini) behind one gateway, and the three official SDKs. */
export async function startCrossStyleFixture(): Promise<CrossStyleFixture> {
  const openaiUpstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-openai-upstream'] });
  const anthropicUpstream = await startFakeAnthropicUpstream({ expectedKeys: ['sk-ant-upstream'] });
  const geminiUpstream = await startFakeGeminiUpstream({ expectedKeys: ['gemini-upstream-key'] });
  const channel = (name: string, type: 'openai' | 'anthropic' | 'gemini', url: string, key: string, model: string) => ({
    name, type, base_url: url, key, models: [model], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {},
  });
  const gateway = await startTestGateway({
    config: {
      prices: Object.fromEntries(Object.values(models).map((model) => [model, { input: 1, output: 2 }])),
      channels: [
        channel('openai', 'openai', openaiUpstream.url, 'sk-openai-upstream', models.openai),
        channel('anthropic', 'anthropic', anthropicUpstream.url, 'sk-ant-upstream', models.anthropic),
        channel('gemini', 'gemini', geminiUpstream.url, 'gemini-upstream-key', models.gemini),
      ],
      tokens: [{ name: 'cross', key: crossKey, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
  return {
    gateway,
    openaiUpstream,
    anthropicUpstream,
    geminiUpstream,
    openai: new OpenAI({ apiKey: crossKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: crossKey, baseURL: gateway.url, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey: crossKey, httpOptions: { baseUrl: gateway.url } }),
    async lastLog() {
      await gateway.settled();
      const page = await gateway.gateway.services.repositories.logs.list({}, { page: 1, pageSize: 1 });
      const [row] = page.items;
      if (row === undefined) throw new Error('no log row');
      return row;
    },
    async close() {
      await gateway.close();
      await Promise.all([openaiUpstream.close(), anthropicUpstream.close(), geminiUpstream.close()]);
    },
  };
}
