import type { ConfigChannel, ConfigFile } from '../../src/config/config-file-schema.js';
import { startScriptedUpstream, type ScriptedUpstream, type ReplyScript } from '../fakes/scripted-upstream.js';
import { chatWhole, replyAsAsked, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

export const userKey = `sk-${'u'.repeat(48)}`;
export const userKey2 = `sk-${'v'.repeat(48)}`;
export const adminUserKey = `sk-${'a'.repeat(48)}`;
export const vipKey = `sk-${'w'.repeat(48)}`;

export const okAnswer = { text: 'ok from upstream', usage: { input: 10, output: 5 } };

export function okReply(style: WireStyle = 'openai-chat'): ReplyScript {
  return replyAsAsked(style, okAnswer);
}
export { chatWhole };

export function channel(name: string, url: string, extra: Partial<ConfigChannel> = {}): ConfigChannel {
  return {
    name,
    type: 'openai',
    base_url: url,
    key: `key-${name}`,
    models: ['gpt-4o-mini'],
    groups: ['default'],
    priority: 0,
    weight: 1,
    model_mapping: {},
    enabled: true,
    auto_disable: true,
    settings: {},
    ...extra,
  } as ConfigChannel;
}

export interface Fixture {
  gateway: TestGateway;
  url: string;
  ups: ScriptedUpstream[];
  idOf(name: string): number;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  chat(key?: string, body?: Record<string, unknown>, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export const prices = { 'gpt-4o-mini': { input: 0.15, output: 0.6 }, 'claude-x': { input: 1, output: 2 }, 'text-embedding-3-small': { input: 0.02 } };

export async function startFixture(options: {
  upstreams: number;
  channels: (urls: string[]) => ConfigChannel[];
  config?: Partial<ConfigFile>;
  env?: Record<string, string>;
  fallback?: ReplyScript[];
}): Promise<Fixture> {
  const ups: ScriptedUpstream[] = [];
  for (let index = 0; index < options.upstreams; index += 1) {
    ups.push(await startScriptedUpstream({ fallback: options.fallback?.[index] ?? okReply() }));
  }
  const gateway = await startTestGateway({
    env: options.env ?? {},
    config: {
      prices,
      groups: { default: 1, vip: 1 },
      channels: options.channels(ups.map((up) => up.url)),
      users: [
        { username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true },
        { username: 'boss', role: 'admin', group: 'default', quota: 1_000_000_000, enabled: true },
        { username: 'vic', role: 'user', group: 'vip', quota: 1_000_000_000, enabled: true },
      ],
      tokens: [
        { name: 'alice-key', user: 'alice', key: userKey, quota: 100_000_000, expires_at: 0, enabled: true },
        { name: 'alice-key2', user: 'alice', key: userKey2, quota: 100_000_000, expires_at: 0, enabled: true },
        { name: 'boss-key', user: 'boss', key: adminUserKey, quota: 100_000_000, expires_at: 0, enabled: true },
        { name: 'vic-key', user: 'vic', key: vipKey, quota: 100_000_000, expires_at: 0, enabled: true },
      ],
      ...options.config,
    } as ConfigFile,
  });
  const url = gateway.url;
  return {
    gateway,
    url,
    ups,
    idOf(name) {
      const found = gateway.gateway.services.catalog.snapshot.channels.find((c) => c.name === name);
      if (found === undefined) throw new Error(`no channel ${name}`);
      return found.id;
    },
    async admin(method, path, body) {
      const response = await fetch(`${url}/api/admin${path}`, {
        method,
        headers: { authorization: `Bearer ${gateway.adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: await response.json().catch(() => undefined) };
    },
    chat(key = userKey, body = {}, headers = {}) {
      return fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50, ...body }),
      });
    },
    async close() {
      await gateway.close();
      for (const up of ups) await up.close();
    },
  };
}

export async function waitFor(check: () => boolean | Promise<boolean>, ms = 3000): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

export function openaiError(status: number, message: string, code: string | null = null) {
  return { status, json: { error: { message, type: 'server_error', param: null, code } } };
}
