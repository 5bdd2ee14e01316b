/**
 * The fixture of the second type-confusion sweep: the real gateway (SQLite, max_body_mb 0.05) in front of the OpenAI, Anthropic and
 * Gemini fakes, one scripted upstream that answers by path (Gemini embeddings, UniFuncs web tools, OpenAI
 * images incl. Seedream) and the fake object store (upload presign). Same shape as bad-input's fixtures
 * (`Watched` of type-confusion-cases.ts) so `sweep` / `checkCase` run on it.
 */
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream.js';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from '../fakes/fake-gemini-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startFakeObjectStore, type FakeObjectStore } from '../fakes/fake-object-store.js';
import { startScriptedUpstream, type ScriptedRequest, type ScriptedReply, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { keys, readBalances } from './bad-input-fixture.js';

export { keys };

export const m = {
  chat: 'gpt-4o-mini',
  claude: 'claude-sonnet-5-5',
  gemini: 'gemini-2.5-flash',
  gemEmbed: 'gemini-embedding-001',
  seedream: 'doubao-seedream-4-5-251128',
  gptImage: 'gpt-image-1',
  dalle2: 'dall-e-2',
} as const;

export interface MoreRoutesFixture {
  gateway: TestGateway;
  url: string;
  openai: FakeOpenaiUpstream;
  anthropic: FakeAnthropicUpstream;
  gemini: FakeGeminiUpstream;
  scripted: ScriptedUpstream;
  s3: FakeObjectStore;
  upstreamCalls(): number;
  balances(): Promise<{ tokens: unknown[]; users: unknown[]; openReservations: number }>;
  close(): Promise<void>;
}

function answerByPath(request: ScriptedRequest): ScriptedReply {
  const path = request.path;
  if (path.includes(':batchEmbedContents')) return { json: { embeddings: [{ values: [0.1, 0.2] }] } };
  if (path.includes(':embedContent')) return { json: { embedding: { values: [0.1, 0.2] } } };
  if (path.includes('/api/web-reader/read')) return { json: { code: 0, message: 'ok', data: { title: 't', content: 'page' } } };
  if (path.includes('/api/web-search/search')) return { json: { code: 0, message: 'ok', data: { webPages: [] } } };
  if (path.includes('/images/')) return { json: { created: 1, data: [{ url: 'https://img.example/1.png' }] } };
  return { status: 404, json: { error: { message: `no script for ${path}` } } };
}

export async function startMoreRoutesFixture(): Promise<MoreRoutesFixture> {
  const openai = await startFakeOpenaiUpstream({ expectedKeys: ['sk-openai-upstream'] });
  const anthropic = await startFakeAnthropicUpstream({ expectedKeys: ['sk-ant-upstream'] });
  const gemini = await startFakeGeminiUpstream({ expectedKeys: ['gemini-upstream-key'] });
  const scripted = await startScriptedUpstream({ fallback: answerByPath });
  const s3 = await startFakeObjectStore({ bucket: 'relay-uploads', accessKeyId: 'AKIDRELAYTEST', secretAccessKey: 'relay-test-secret' });
  const base = { groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} };
  const gateway = await startTestGateway({
    env: { UPLOAD_S3_ENDPOINT: s3.url, UPLOAD_S3_BUCKET: 'relay-uploads', UPLOAD_S3_ACCESS_KEY_ID: 'AKIDRELAYTEST', UPLOAD_S3_SECRET_ACCESS_KEY: 'relay-test-secret' },
    config: {
      max_body_mb: 0.05,
      retry_times: 0,
      prices: {
        [m.chat]: { input: 1, output: 2 },
        [m.claude]: { input: 1, output: 2 },
        [m.gemini]: { input: 1, output: 2 },
        [m.gemEmbed]: { input: 0.02 },
        [m.seedream]: { per_call: 0.04 },
        [m.gptImage]: { input: 5, output: 40 },
        [m.dalle2]: { per_call: 0.02 },
        'web-reader': { per_call: 0.02 },
        'web-search': { per_call: 0.002 },
      },
      channels: [
        { ...base, name: 'openai', type: 'openai', base_url: openai.url, key: 'sk-openai-upstream', models: [m.chat] },
        { ...base, name: 'anthropic', type: 'anthropic', base_url: anthropic.url, key: 'sk-ant-upstream', models: [m.claude] },
        { ...base, name: 'gemini', type: 'gemini', base_url: gemini.url, key: 'gemini-upstream-key', models: [m.gemini] },
        { ...base, name: 'gemini-embed', type: 'gemini', base_url: scripted.url, key: 'gemini-embed-key', models: [m.gemEmbed] },
        { ...base, name: 'images', type: 'openai', base_url: scripted.url, key: 'sk-img', models: [m.seedream, m.gptImage, m.dalle2] },
        { ...base, name: 'unifuncs', type: 'openai', base_url: scripted.url, key: 'sk-unifuncs', models: ['web-reader', 'web-search'] },
      ],
      users: [
        { username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true },
        { username: 'bob', role: 'user', group: 'default', quota: 1_000_000_000, enabled: false },
      ],
      tokens: [
        { name: 'good', user: 'alice', key: keys.good, quota: 100_000_000, expires_at: 0, enabled: true },
        { name: 'exhausted', user: 'alice', key: keys.exhausted, quota: 0, expires_at: 0, enabled: true },
      ],
    },
  });
  return {
    gateway,
    url: gateway.url,
    openai,
    anthropic,
    gemini,
    scripted,
    s3,
    upstreamCalls: () => openai.requests.length + anthropic.requests.length + gemini.requests.length + scripted.requests.length,
    balances: () => readBalances(gateway),
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close(), scripted.close(), s3.close()]);
    },
  };
}
