import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/storage/create-database.js';
import { hashApiKey } from '../../src/security/api-keys.js';

const cli = ['--import', 'tsx', 'src/cli/relay.ts'];
const directory = mkdtempSync(join(tmpdir(), 'relay-cli-'));
const environment = { ...process.env, DATABASE_URL: `sqlite:${join(directory, 'relay.db')}`, LOG_LEVEL: 'silent', CRYPTO_SECRET: 'cli-test', SESSION_SECRET: 'cli-test' };

function run(args: string[]) {
  return spawnSync(process.execPath, [...cli, ...args], { env: environment, encoding: 'utf8', timeout: 60_000 });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('relay CLI', { timeout: 90_000 }, () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it('config check accepts a valid file and names the key and file of an invalid one', () => {
    const good = join(directory, 'good.yaml');
    writeFileSync(good, 'quota_per_unit: 500000\ngroups: { default: 1 }\n');
    const ok = run(['config', 'check', good]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('is valid');
    const bad = join(directory, 'bad.yaml');
    writeFileSync(bad, 'quota_per_unit: 500000\nchannels:\n  - { name: a, type: openai, base_url: "http://x", key: k, models: [m], prioirty: 1 }\n');
    const refused = run(['config', 'check', bad]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(bad);
    expect(refused.stderr).toContain('channels.0.prioirty');
  });

  it('migrate, then token create prints a key stored only as its hash', async () => {
    expect(run(['migrate']).status).toBe(0);
    // The root user is created on first start; the CLI needs an owner, so start once.
    const port = await freePort();
    const server = spawn(process.execPath, [...cli, 'serve'], { env: { ...environment, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'pipe' });
    children.push(server);
    await waitForHealth(port);
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    const created = run(['token', 'create', '--name', 'cli-key', '--quota', '1000']);
    expect(created.status).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    const database = await createDatabase(environment.DATABASE_URL);
    const row = await database.db.selectFrom('tokens').selectAll().where('name', '=', 'cli-key').executeTakeFirstOrThrow();
    await database.close();
    expect(row.key_hash).toBe(hashApiKey(key));
    expect(row.remain_quota).toBe(1000);
  });

  it('serve --workers 2 answers on one port from two processes and stops on SIGTERM', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [...cli, 'serve', '--workers', '2'], { env: { ...environment, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'pipe' });
    children.push(server);
    await waitForHealth(port);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.status)));
    expect(statuses.every((status) => status === 200)).toBe(true);
    const workers = spawnSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);
    expect(workers).toHaveLength(2);
    server.kill('SIGTERM');
    const code = await new Promise((resolve) => server.once('exit', resolve));
    expect(code).toBe(0);
  });
});

async function waitForHealth(port: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < 45_000) {
    const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.ok, () => false);
    if (healthy) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`gateway on ${port} did not become healthy`);
}
