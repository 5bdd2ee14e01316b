import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import OpenAI, { APIError } from 'openai';
import { stringify } from 'yaml';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { defaultRedisKeyPrefix } from '../../src/limits/redis-rate-limiter.js';
import { startTestGateway, testAdminKey, type TestGateway } from '../support/start-test-gateway.js';
import { serverUrls } from '../support/test-databases.js';

export const userKey = `sk-${'r'.repeat(48)}`;
export const upstreamKey = 'sk-upstream-replicas';

/**
 * RELAY_TEST_REDIS_URL with logical database 11, which no other test file names: these rate windows
 * (per user and per IP, ids restarting at 1 in every fresh database) never meet another file's.
 */
export function replicaRedisUrl(): string {
  if (serverUrls.redis === undefined) throw new Error('RELAY_TEST_REDIS_URL is not set');
  const url = new URL(serverUrls.redis);
  url.pathname = '/11';
  return url.toString();
}

/** Deletes the per-user and per-IP rate windows an earlier test (or run) left in this directory's Redis database. */
export async function clearRateWindows(redisUrl: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  try {
    const stale = [...(await redis.keys(`${defaultRedisKeyPrefix}user:*`)), ...(await redis.keys(`${defaultRedisKeyPrefix}ip:*`))];
    if (stale.length > 0) await redis.del(...stale);
  } finally {
    redis.disconnect();
  }
}

/** A config file in a temporary directory, for a spawned `relay serve`. */
export function writeConfig(config: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'relay-replicas-')), 'relay.yaml');
  writeFileSync(path, stringify(config));
  return path;
}

export function replicaConfig(upstreamUrl: string, extra: Partial<ConfigFile> = {}): ConfigFile {
  return {
    admin_key: testAdminKey,
    prices: { 'gpt-4o-mini': { input: 3, output: 15 } },
    channels: [
      { name: 'ch-a', type: 'openai', base_url: upstreamUrl, key: upstreamKey, models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} },
    ],
    users: [{ username: 'carol', password: 'carol-password', role: 'user', group: 'default', quota: 10_000_000, enabled: true }],
    tokens: [{ name: 'carol-key', user: 'carol', key: userKey, quota: 10_000_000, expires_at: 0, enabled: true }],
    ...extra,
  } as ConfigFile;
}

export function client(url: string, key = userKey): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0, timeout: 15_000 });
}

/** The status of one small chat call through the SDK: 200 or the APIError status. */
export async function chatStatus(url: string, key = userKey, headers: Record<string, string> = {}): Promise<number> {
  try {
    await client(url, key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }, { headers });
    return 200;
  } catch (error) {
    if (error instanceof APIError && error.status !== undefined) return error.status;
    throw error;
  }
}

export async function admin(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${testAdminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

export async function findId(url: string, kind: 'tokens' | 'users' | 'channels', name: string): Promise<number> {
  const answer = await admin(url, 'GET', `/${kind}?page_size=100`);
  const item = (answer.body.data.items as any[]).find((entry) => entry.name === name || entry.username === name);
  if (item === undefined) throw new Error(`no ${kind} ${name}: ${JSON.stringify(answer.body)}`);
  return item.id;
}

/** Polls `condition` until it returns true; answers the ms it took, or -1 past the deadline. */
export async function within(ms: number, condition: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - start;
    if (Date.now() - start > ms) return -1;
    await sleep(50);
  }
}

export async function startReplica(databaseUrl: string, upstreamUrl: string, env: Record<string, string>, extra: Partial<ConfigFile> = {}): Promise<TestGateway> {
  return startTestGateway({ databaseUrl, env, config: replicaConfig(upstreamUrl, extra) });
}

export async function logIn(url: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  if (response.status !== 200) throw new Error(`login ${response.status} ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('relay_session='));
  return cookie!.split(';', 1)[0]!;
}

export async function selfStatus(url: string, cookie: string): Promise<number> {
  return (await fetch(`${url}/api/user/self`, { headers: { cookie } })).status;
}

export const repositoryRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface Served {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  ready(timeoutMs?: number): Promise<void>;
  workerPids(): number[];
  kill(signal?: NodeJS.Signals): void;
}

/** `relay serve` (or another relay command) through tsx, in a process of its own. */
export function spawnRelay(args: string[], env: Record<string, string>, port = 0): Served {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/relay.ts', ...args], {
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', CRYPTO_SECRET: 'replicas-crypto', SESSION_SECRET: 'replicas-session', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.once('exit', (code, signal) => {
      done = true;
      children.delete(child);
      resolveExit({ code, signal });
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    url,
    output: () => output,
    exited,
    async ready(timeoutMs = 25_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (done) throw new Error(`relay ${args.join(' ')} exited before ready:\n${output}`);
        if (await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false)) return;
        if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms:\n${output}`);
        await sleep(100);
      }
    },
    workerPids() {
      return spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean).map(Number);
    },
    kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (!done) child.kill(signal);
    },
  };
}

/** Runs a relay command to its end; answers exit code and output. */
export async function runRelay(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const served = spawnRelay(args, env);
  const { code } = await served.exited;
  return { code, output: served.output() };
}
