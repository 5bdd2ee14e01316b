/**
 * The admin API's write bodies (channels, tokens, users, prices, groups, balance adjustments),
 * every field of a valid body (and known optional fields) × every hostile value (casesOf of
 * bad-input/type-confusion-cases.ts). Bar: never a 500 nor the crash text; a refusal in the `/api`
 * `{success:false,message}` envelope; after every accepted write, one chat request through the gateway that
 * uses what was written is not a 500 and leaves no reservation open. Each case cleans up after itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './bad-input-fixture.js';
import { casesOf, type RouteUnderTest } from './type-confusion-cases.js';
import { callAdmin, callGateway } from '../admin/admin-client.js';
import { keys, m, startMoreRoutesFixture, type MoreRoutesFixture } from './more-routes-fixture.js';

let fixture: MoreRoutesFixture;
let seq = 0;
const unique = (prefix: string) => `${prefix}-${(seq += 1)}`;

/** The kind of write: what to create first (for updates), where to send the body, what chat to run after. */
type Kind = 'channel-create' | 'anthropic-channel-create' | 'channel-update' | 'token-create' | 'token-update' | 'user-create' | 'user-update' | 'price-create' | 'price-update' | 'group-create' | 'group-update' | 'token-quota' | 'user-quota';

const channelBody = (): Record<string, unknown> => ({
  name: 'fuzz-channel',
  type: 'openai',
  base_url: 'http://127.0.0.1:1',
  key: 'sk-openai-upstream',
  models: [m.chat],
  groups: ['default'],
  priority: 100,
  weight: 1,
  model_mapping: { [m.chat]: m.chat },
  enabled: true,
  auto_disable: false,
  settings: { max_tokens: 100, max_tokens_field: 'max_tokens', stream_usage: true, replay_reasoning: false, api: 'chat' },
});
const settingsExtra = ['settings.max_tokens', 'settings.api', 'settings.stream_usage', 'settings.max_tokens_field', 'settings.replay_reasoning', 'keys'];

const routes: Array<RouteUnderTest & { kind: Kind }> = [
  { kind: 'channel-create', label: 'POST channel', path: '/api/admin/channels', style: 'api', body: channelBody(), extra: settingsExtra },
  { kind: 'anthropic-channel-create', label: 'POST anthropic channel', path: '/api/admin/channels', style: 'api', body: { ...channelBody(), type: 'anthropic', key: 'sk-ant-upstream', models: [m.claude], model_mapping: { [m.claude]: m.claude }, settings: { max_tokens: { [m.claude]: 100 } } } },
  { kind: 'channel-update', label: 'PUT channel', path: '/api/admin/channels/:id', style: 'api', body: { ...channelBody(), name: 'fuzz-channel-upd' }, extra: settingsExtra },
  { kind: 'token-create', label: 'POST token', path: '/api/admin/tokens', style: 'api', body: { name: 'fuzz-token', user: 'alice', group: 'default', quota: 10_000_000, unlimited_quota: false, model_limits: [m.chat], expires_at: 0, rate_limit: { rpm: 1000, tpm: 10_000_000 }, enabled: true }, extra: ['user_id'] },
  { kind: 'token-update', label: 'PUT token', path: '/api/admin/tokens/:id', style: 'api', body: { name: 'fuzz-token-upd', group: 'default', unlimited_quota: false, model_limits: [m.chat], expires_at: 0, rate_limit: { rpm: 1000, tpm: 10_000_000 }, enabled: true }, extra: ['quota', 'user', 'user_id'] },
  { kind: 'user-create', label: 'POST user', path: '/api/admin/users', style: 'api', body: { username: 'fuzz-user', password: 'password123', role: 'user', group: 'default', quota: 1_000_000_000, unlimited_quota: false, enabled: true } },
  { kind: 'user-update', label: 'PUT user', path: '/api/admin/users/:id', style: 'api', body: { username: 'fuzz-user-upd', password: 'password123', role: 'user', group: 'default', unlimited_quota: false, enabled: true }, extra: ['quota'] },
  { kind: 'price-create', label: 'POST price', path: '/api/admin/prices', style: 'api', body: { model: 'fuzz-model', input: 1, output: 2, cache_read: 0.1, cache_write: 1.25, cache_write_1h: 2, audio_input: 1, audio_output: 2, web_search: 0.01, per_call: 0.1, per_second: 0.1 } },
  { kind: 'price-update', label: 'PUT price', path: `/api/admin/prices/${m.chat}`, style: 'api', body: { input: 1, output: 2, cache_read: 0.1, cache_write: 1.25, cache_write_1h: 2, audio_input: 1, audio_output: 2, web_search: 0.01 }, extra: ['per_call', 'per_second'] },
  { kind: 'group-create', label: 'POST group', path: '/api/admin/groups', style: 'api', body: { name: 'fuzz-group', ratio: 1 } },
  { kind: 'group-update', label: 'PUT group', path: '/api/admin/groups/default', style: 'api', body: { ratio: 1 } },
  { kind: 'token-quota', label: 'POST token quota', path: '/api/admin/tokens/:good/quota', style: 'api', body: { delta: 1000 } },
  { kind: 'user-quota', label: 'POST user quota', path: '/api/admin/users/:alice/quota', style: 'api', body: { delta: 1000 } },
];

const cases = casesOf(routes).map((c) => ({ ...c, kind: (c.route as (typeof routes)[number]).kind }));

async function chat(key: string, model: string = m.chat): Promise<void> {
  const answer = await callGateway(fixture.gateway, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${key}` }, body: { model, messages: [{ role: 'user', content: 'hi' }] } });
  const what = `chat after the write → ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (process.env.FUZZ_LOG) (await import('node:fs')).appendFileSync(process.env.FUZZ_LOG, `${JSON.stringify({ chat: answer.status, text: answer.text.slice(0, 200) })}\n`);
  expect(answer.status, what).not.toBe(500);
  expect(answer.text, what).not.toContain('Internal server error');
  const balances = await fixture.balances();
  expect(balances.openReservations, what).toBe(0);
  const health = await fetch(`${fixture.url}/healthz`);
  expect(health.status, 'gateway still up').toBe(200);
}

const idOf = async (table: 'tokens' | 'users', column: 'name' | 'username', value: string) =>
  Number((await fixture.gateway.gateway.services.database.db.selectFrom(table as 'tokens').select('id').where(column as 'name', '=', value).executeTakeFirstOrThrow()).id);

/** Sends the hostile body to its route (creating first what an update changes) and answers the follow-up check and the cleanup. */
async function run(kind: Kind, path: string, body: string): Promise<void> {
  // The placeholder base URL becomes the real fake upstream's, so the follow-up chat reaches it.
  body = body.replaceAll('http://127.0.0.1:1"', `${kind === 'anthropic-channel-create' ? fixture.anthropic.url : fixture.openai.url}"`);
  const admin = (method: string, p: string, b?: unknown) => callAdmin(fixture.gateway, method, p, b === undefined ? {} : { body: b });
  let target: number | undefined;
  let followUp: (data: any) => Promise<void> = async () => chat(keys.good);
  let cleanup: (data: any) => Promise<void> = async () => {};
  switch (kind) {
    case 'channel-create':
    case 'anthropic-channel-create': {
      const model = kind === 'channel-create' ? m.chat : m.claude;
      followUp = async () => chat(keys.good, model);
      cleanup = async () => {
        const list = await admin('GET', '/api/admin/channels?page_size=100');
        for (const channel of list.body.data.items ?? list.body.data) if (!['openai', 'anthropic', 'gemini', 'gemini-embed', 'images', 'unifuncs'].includes(channel.name)) await admin('DELETE', `/api/admin/channels/${channel.id}`);
      };
      const parsed = JSON.parse(body);
      if (parsed.name === 'fuzz-channel') parsed.name = unique('fuzz-channel');
      body = JSON.stringify(parsed);
      break;
    }
    case 'channel-update': {
      const made = await admin('POST', '/api/admin/channels', { ...channelBody(), base_url: fixture.openai.url, name: unique('fuzz-ch') });
      target = made.body.data.id;
      followUp = async () => chat(keys.good, m.chat);
      cleanup = async () => void (await admin('DELETE', `/api/admin/channels/${target}`));
      break;
    }
    case 'token-create': {
      const parsed = JSON.parse(body);
      if (parsed.name === 'fuzz-token') parsed.name = unique('fuzz-token');
      body = JSON.stringify(parsed);
      followUp = async (data) => chat(data.key);
      cleanup = async (data) => void (await admin('DELETE', `/api/admin/tokens/${data.id}`));
      break;
    }
    case 'token-update': {
      const made = await admin('POST', '/api/admin/tokens', { name: unique('fuzz-tok'), user: 'alice', quota: 10_000_000, unlimited_quota: false });
      target = made.body.data.id;
      const key = made.body.data.key as string;
      followUp = async () => chat(key);
      cleanup = async () => void (await admin('DELETE', `/api/admin/tokens/${target}`));
      break;
    }
    case 'user-create': {
      const parsed = JSON.parse(body);
      if (parsed.username === 'fuzz-user') parsed.username = unique('fuzz-user');
      body = JSON.stringify(parsed);
      followUp = async (data) => {
        const token = await admin('POST', '/api/admin/tokens', { name: unique('t'), user_id: data.id, quota: 10_000_000, unlimited_quota: false });
        expect(token.status, token.text).toBe(200);
        await chat(token.body.data.key);
      };
      cleanup = async (data) => void (await admin('DELETE', `/api/admin/users/${data.id}`));
      break;
    }
    case 'user-update': {
      const made = await admin('POST', '/api/admin/users', { username: unique('fuzz-u'), password: 'password123', quota: 1_000_000_000 });
      target = made.body.data.id;
      const token = await admin('POST', '/api/admin/tokens', { name: unique('t'), user_id: target, quota: 10_000_000, unlimited_quota: false });
      const key = token.body.data.key as string;
      followUp = async () => chat(key);
      cleanup = async () => void (await admin('DELETE', `/api/admin/users/${target}`));
      break;
    }
    case 'price-create': {
      cleanup = async (data) => void (await admin('DELETE', `/api/admin/prices/${encodeURIComponent(data.model)}`));
      break;
    }
    case 'price-update':
      cleanup = async () => void (await admin('PUT', `/api/admin/prices/${m.chat}`, { input: 1, output: 2, cache_read: null, cache_write: null, cache_write_1h: null, audio_input: null, audio_output: null, web_search: null, per_call: null, per_second: null }));
      break;
    case 'group-create': {
      const parsed = JSON.parse(body);
      if (parsed.name === 'fuzz-group') parsed.name = unique('fuzz-group');
      body = JSON.stringify(parsed);
      cleanup = async (data) => void (await admin('DELETE', `/api/admin/groups/${encodeURIComponent(data.name)}`));
      break;
    }
    case 'group-update':
      cleanup = async () => void (await admin('PUT', '/api/admin/groups/default', { ratio: 1 }));
      break;
    case 'token-quota':
      path = path.replace(':good', String(await idOf('tokens', 'name', 'good')));
      cleanup = async () => void (await fixture.gateway.gateway.services.database.db.updateTable('tokens').set({ remain_quota: 100_000_000 }).where('name', '=', 'good').execute());
      break;
    case 'user-quota':
      path = path.replace(':alice', String(await idOf('users', 'username', 'alice')));
      cleanup = async () => void (await fixture.gateway.gateway.services.database.db.updateTable('users').set({ quota: 1_000_000_000 }).where('username', '=', 'alice').execute());
      break;
  }
  path = path.replace(':id', String(target));
  const method = kind.endsWith('update') ? 'PUT' : 'POST';
  const answer = await callAdmin(fixture.gateway, method, path, { rawBody: body });
  const what = `${method} ${path} → ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (process.env.FUZZ_LOG) (await import('node:fs')).appendFileSync(process.env.FUZZ_LOG, `${JSON.stringify({ kind, body: body.slice(0, 200), status: answer.status, text: answer.text.slice(0, 200) })}\n`);
  try {
    expect(answer.status, what).not.toBe(500);
    expect(answer.text, what).not.toContain('Internal server error');
    if (answer.status >= 400) expectEnvelope({ status: answer.status, body: answer.body, text: answer.text, headers: answer.headers }, 'api');
    else await followUp(answer.body.data);
  } finally {
    await cleanup(answer.status < 400 ? answer.body.data : {}).catch(() => undefined);
    if (target !== undefined && answer.status >= 400) await cleanup({}).catch(() => undefined);
  }
}

beforeAll(async () => {
  fixture = await startMoreRoutesFixture();
});
afterAll(async () => {
  await fixture?.close();
});

describe('admin write bodies: every field × every hostile value, then a chat through the gateway', () => {
  const only = process.env.FUZZ_ONLY;
  it.each(cases.filter((c) => only === undefined || c.name.includes(only)).map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await run(c.kind, c.route.path, c.body);
  });
});
