/**
 * The real gateway (SQLite) in front of a scripted UniFuncs-style upstream on an OpenAI-type channel that
 * lists `web-reader` and `web-search` at per-call prices; `reader-key` may use both, `search-only` only the
 * search. There is no official SDK for these APIs: the client is `fetch`.
 */
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

export const readerKey = `sk-${'w'.repeat(48)}`;
export const searchOnlyKey = `sk-${'o'.repeat(48)}`;
/** Per call, in the site currency; × quota_per_unit (500 000) = the charge in quota units. */
export const readerPrice = 0.02;
export const searchPrice = 0.002;
export const readerCharge = readerPrice * 500_000;
export const searchCharge = searchPrice * 500_000;

export interface WebToolsFixture {
  gateway: TestGateway;
  upstream: ScriptedUpstream;
  post(path: string, body: string, key?: string): Promise<Response>;
  /** What `reader-key` has spent, once everything settled. */
  used(): Promise<number>;
  /** Runs `run` and reads its answer's text and what it charged `reader-key`. */
  charged(run: () => Promise<Response>): Promise<{ response: Response; text: string; charge: number }>;
  lastLog(): Promise<{ model: string | null; style: string; status: number; quota: number }>;
  reset(): void;
  close(): Promise<void>;
}

export async function startWebToolsFixture(): Promise<WebToolsFixture> {
  const upstream = await startScriptedUpstream();
  const gateway = await startTestGateway({
    config: {
      retry_times: 0,
      prices: { 'web-reader': { per_call: readerPrice }, 'web-search': { per_call: searchPrice } },
      channels: [
        { name: 'unifuncs', type: 'openai', base_url: upstream.url, key: 'sk-unifuncs', models: ['web-reader', 'web-search'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} },
      ],
      users: [{ username: 'reader', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [
        { name: 'reader-key', user: 'reader', key: readerKey, quota: 1_000_000_000, expires_at: 0, enabled: true },
        { name: 'search-only', user: 'reader', key: searchOnlyKey, quota: 1_000_000_000, expires_at: 0, enabled: true, model_limits: ['web-search'] },
      ],
    },
  });
  const { db } = gateway.gateway.services.database;
  const used = async () => {
    await gateway.settled();
    const row = await db.selectFrom('tokens').select('used_quota').where('name', '=', 'reader-key').executeTakeFirstOrThrow();
    return Number(row.used_quota);
  };
  const post = (path: string, body: string, key = readerKey) => fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  return {
    gateway,
    upstream,
    post,
    used,
    async charged(run) {
      const before = await used();
      const response = await run();
      const text = await response.text();
      return { response, text, charge: (await used()) - before };
    },
    async lastLog() {
      await gateway.settled();
      return db.selectFrom('logs').select(['model', 'style', 'status', 'quota']).orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    },
    reset() {
      upstream.clearQueue();
      upstream.requests.length = 0;
    },
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}
