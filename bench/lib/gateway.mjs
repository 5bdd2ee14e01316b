/** The gateway under test: a generated config and `node dist/cli/relay.js serve` in its own process. */
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, waitForLine } from './processes.mjs';

export const benchModel = 'gpt-4o-mini';

function randomKey() {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(48);
  let key = 'sk-';
  for (const byte of bytes) key += alphabet[byte % alphabet.length];
  return key;
}

/**
 * Governed on purpose: a real (limited) token and user balance, a price, rate limits on every level set
 * far above what the benchmark can reach, and the request log on (it always is).
 */
export function writeGatewayConfig(directory, upstreamUrl) {
  const tokenKey = randomKey();
  const config = {
    admin_key: randomKey(),
    retry_times: 2,
    // Limits stay within 32 bits: the token columns are INTEGER (PostgreSQL refuses 10^12 there).
    rate_limits: { per_ip: { rpm: 1_000_000_000 }, per_user: { rpm: 1_000_000_000, tpm: 2_000_000_000 } },
    prices: { [benchModel]: { input: 0.15, output: 0.6, cache_read: 0.075 } },
    channels: [
      {
        name: 'bench-upstream',
        type: 'openai',
        base_url: upstreamUrl,
        key: 'sk-bench-upstream-key',
        models: [benchModel],
        groups: ['default'],
        priority: 0,
        weight: 1,
        auto_disable: false,
      },
    ],
    users: [{ username: 'bench', role: 'user', group: 'default', quota: 100_000_000_000_000 }],
    tokens: [
      {
        name: `bench-${Date.now()}`,
        user: 'bench',
        key: tokenKey,
        quota: 10_000_000_000_000,
        rate_limit: { rpm: 1_000_000_000, tpm: 2_000_000_000 },
      },
    ],
  };
  const path = join(directory, 'relay-bench.json');
  writeFileSync(path, JSON.stringify(config, null, 2));
  return { path, tokenKey };
}

/**
 * Starts the built gateway. `databaseUrl` and `redisUrl` choose the storage; `nodeFlags` go to node
 * (e.g. --cpu-prof), `serveArgs` to `relay serve` (e.g. --workers 2); `launcher` runs node under another
 * program (e.g. valgrind and its arguments), with `extraEnv` added to the gateway's environment.
 */
export async function startGateway({ repoRoot, directory, configPath, databaseUrl, redisUrl, core, nodeFlags = [], serveArgs = [], name = 'gateway', launcher = [], extraEnv = {}, startTimeoutMs = 120_000 }) {
  const cli = join(repoRoot, 'dist', 'cli', 'relay.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  // Fixed, so that a persistent database (--pg) can decrypt the channel key a previous run stored.
  const secret = 'unified-relay-bench-secret-not-for-production';
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    RELAY_CONFIG: configPath,
    LOG_LEVEL: 'warn',
    NODE_NAME: `bench-${process.pid}`,
    SESSION_SECRET: secret,
    CRYPTO_SECRET: secret,
    ...extraEnv,
  };
  if (redisUrl !== undefined) env.REDIS_URL = redisUrl;
  // The working directory is the run's temp directory, so no .env of the checkout leaks in.
  const [command, ...launcherArgs] = [...launcher, process.execPath];
  const handle = startProcess(name, command, [...launcherArgs, ...nodeFlags, cli, 'serve', ...serveArgs], { core, env, cwd: directory });
  const line = await waitForLine(handle, (text) => text.startsWith('Unified Relay listening on '), startTimeoutMs);
  const url = /listening on (\S+)/.exec(line)[1];
  return { handle, url: url.replace('0.0.0.0', '127.0.0.1') };
}

/** Whether `relay serve` knows `--workers` (read from its usage text; nothing else is started). */
export async function cliSupportsWorkers(repoRoot) {
  const { spawnSync } = await import('node:child_process');
  const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli', 'relay.js'), 'help'], { encoding: 'utf8', cwd: '/', env: { PATH: process.env.PATH } });
  return /--workers\b/.test(`${result.stdout}${result.stderr}`);
}
