/**
 * The real gateway (SQLite) in front of three scripted upstreams (test/fakes/scripted-upstream.ts), one per
 * text channel type, with models whose names carry URL-significant characters and model_mapping results
 * that do too. One limited token (quota), so that charges and open reservations can be read back.
 */
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { readAnswer } from '../support/read-answer.js';

export const clientKey = `sk-${'Edge5'.repeat(9)}xyz`;

/** Model names with URL-significant characters (each listed by a channel, so they pass routing). */
export const odd = {
  slash: 'org/model',
  dots: '..',
  dotSlash: '../../v1/admin',
  query: 'm?x=1',
  hash: 'm#frag',
  pctSlash: 'a%2Fb',
  space: 'a b',
  unicode: 'modèle-ü',
  crlf: 'm\r\nx-injected: 1',
};

export interface HardeningFixture {
  gateway: TestGateway;
  url: string;
  openai: ScriptedUpstream;
  anthropic: ScriptedUpstream;
  gemini: ScriptedUpstream;
  balances(): Promise<{ tokenRemain: number; tokenUsed: number; userUsed: number; openReservations: number; reservations: number }>;
  logRows(): Promise<{ request_id: string; status: number; quota: number; error: string | null }[]>;
  close(): Promise<void>;
}

const price = { input: 1, output: 2 };

export async function startHardeningFixture(options: { env?: Record<string, string>; config?: Partial<ConfigFile> } = {}): Promise<HardeningFixture> {
  const [openai, anthropic, gemini] = await Promise.all([startScriptedUpstream(), startScriptedUpstream(), startScriptedUpstream()]);
  const geminiModels = ['gemini-2.5-flash', ...Object.values(odd), 'gem-mapped-evil'];
  const openaiModels = ['gpt-4o-mini', 'text-embedding-3-small', 'oa-mapped-evil', ...Object.values(odd).map((name) => `oa-${name}`)];
  const prices: Record<string, typeof price> = {};
  for (const model of [...geminiModels, ...openaiModels, 'claude-sonnet-4-5']) prices[model] = price;
  const gateway = await startTestGateway({
    ...(options.env === undefined ? {} : { env: options.env }),
    config: {
      prices,
      channels: [
        { name: 'oa', type: 'openai', base_url: openai.url, key: 'sk-upstream-openai-SECRET', models: openaiModels, groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: { 'oa-mapped-evil': 'x/../../admin?y=1#z\r\nx-injected: 1' } },
        { name: 'an', type: 'anthropic', base_url: anthropic.url, key: 'sk-upstream-anthropic-SECRET', models: ['claude-sonnet-4-5'], groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} },
        { name: 'ge', type: 'gemini', base_url: gemini.url, key: 'upstream-gemini-SECRET', models: geminiModels, groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: { 'gem-mapped-evil': '../../v1/admin?key=stolen#x' } },
      ],
      users: [{ username: 'caller', role: 'user', group: 'default', enabled: true, quota: 100_000_000 }],
      tokens: [{ name: 'caller-key', user: 'caller', key: clientKey, quota: 100_000_000, expires_at: 0, enabled: true }],
      ...options.config,
    },
  });
  const db = gateway.gateway.services.database.db;
  return {
    gateway,
    url: gateway.url,
    openai,
    anthropic,
    gemini,
    async balances() {
      await gateway.settled();
      const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('name', '=', 'caller-key').executeTakeFirstOrThrow();
      const user = await db.selectFrom('users').select(['used_quota']).where('username', '=', 'caller').executeTakeFirstOrThrow();
      const open = await db.selectFrom('quota_reservations').select(['id']).where('state', '=', 'reserved').execute();
      const all = await db.selectFrom('quota_reservations').select(['id']).execute();
      return { tokenRemain: Number(token.remain_quota), tokenUsed: Number(token.used_quota), userUsed: Number(user.used_quota), openReservations: open.length, reservations: all.length };
    },
    async logRows() {
      await gateway.settled();
      return (await db.selectFrom('logs').select(['request_id', 'status', 'quota', 'error']).orderBy('id').execute()) as never;
    },
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}

/** One raw request with the client key (Bearer) unless headers say otherwise; `json` is the parsed body, when it is JSON. */
export async function send(url: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json', ...init.headers },
    ...(init.raw !== undefined ? { body: init.raw } : init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return readAnswer(response);
}
