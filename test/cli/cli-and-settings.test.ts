import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnvironment } from '../../src/config/read-environment.js';
import { SettingError } from '../../src/config/setting-error.js';
import { startTestGateway } from '../support/start-test-gateway.js';
import { cleanEnvironment, freePort, runCli, spawnCli, waitFor } from './support.js';

const cwd = mkdtempSync(join(tmpdir(), 'relay-cli-settings-'));
const env = cleanEnvironment({ DATABASE_URL: `sqlite:${join(cwd, 'relay.db')}`, CRYPTO_SECRET: 'cli-settings', SESSION_SECRET: 'cli-settings' });

/** "An operator's mistake is said plainly": one line (or a few), no `    at …` stack frames. */
function expectPlainError(result: { status: number | null; stderr: string }, mentions: string) {
  expect(result.status).not.toBe(0);
  expect(result.stderr).toContain(mentions);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('documented CLI: mistakes are said plainly', { timeout: 120_000 }, () => {
  const children: ReturnType<typeof spawnCli>[] = [];
  beforeAll(async () => {
    // `relay token create` needs the root user, which the first `serve` creates.
    const port = await freePort();
    const child = spawnCli(['serve'], { cwd, env: { ...env, PORT: String(port), HOST: '127.0.0.1' } });
    children.push(child);
    await waitFor(() => (child.output().stdout.includes('listening on') ? true : undefined));
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  });
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it('token create without --name: a plain error, no stack trace', () => {
    expectPlainError(runCli(['token', 'create', '--user', 'root'], { cwd, env }), '--name');
  });

  it('token create with an unknown option: a plain error, no stack trace', () => {
    expectPlainError(runCli(['token', 'create', '--name', 'x', '--qouta', '5'], { cwd, env }), '--qouta');
  });

  it('token create for a user that does not exist: a plain error, no stack trace', () => {
    expectPlainError(runCli(['token', 'create', '--user', 'nobody', '--name', 'x'], { cwd, env }), 'nobody');
  });

  it('token create --quota above Number.MAX_SAFE_INTEGER is refused (README: balances are 0 to 9007199254740991)', () => {
    expectPlainError(runCli(['token', 'create', '--name', 'too-big', '--quota', '9007199254740993'], { cwd, env }), '--quota');
  });

  it('token create --quota 1e3 / 0x10 is refused (whole numbers are written in decimal digits)', () => {
    expectPlainError(runCli(['token', 'create', '--name', 'hex', '--quota', '0x10'], { cwd, env }), '0x10');
    expectPlainError(runCli(['token', 'create', '--name', 'exp', '--quota', '1e3'], { cwd, env }), '1e3');
  });

  it('token create takes --quota or --unlimited, not both', () => {
    expectPlainError(runCli(['token', 'create', '--name', 'both', '--quota', '5', '--unlimited'], { cwd, env }), 'not both');
  });

  it('serve --workers with no number stops with an error naming --workers (not a silent single process)', async () => {
    const port = await freePort();
    const child = spawnCli(['serve', '--workers'], { cwd, env: { ...env, PORT: String(port), HOST: '127.0.0.1' } });
    children.push(child);
    const outcome = await waitFor(() => (child.exitCode !== null ? `exit ${child.exitCode}` : child.output().stdout.includes('listening on') ? 'serving' : undefined));
    child.kill('SIGKILL');
    expect(outcome).toBe('exit 1');
    expect(child.output().stderr).toContain('--workers');
  });

  it('serve --workers=2 runs two workers, as --workers 2 does', async () => {
    const port = await freePort();
    const child = spawnCli(['serve', '--workers=2'], { cwd, env: { ...env, PORT: String(port), HOST: '127.0.0.1' } });
    children.push(child);
    const outcome = await waitFor(() => (child.exitCode !== null ? `exit ${child.exitCode}` : child.output().stdout.includes('listening on') ? 'serving' : undefined));
    await new Promise((done) => setTimeout(done, 1500));
    const workers = child.exitCode === null ? spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean).length : 0;
    child.kill('SIGKILL');
    expect(outcome).toBe('serving');
    expect(workers).toBe(2);
  });

  it('serve with an unknown flag stops with an error naming it', async () => {
    expectPlainError(runCli(['serve', '--wrokers', '2'], { cwd, env: { ...env, PORT: String(await freePort()), HOST: '127.0.0.1' } }), '--wrokers');
  });

  it('RELAY_WORKERS=0x2 is refused like every whole-number setting written other than in decimal digits', async () => {
    const port = await freePort();
    const child = spawnCli(['serve'], { cwd, env: { ...env, PORT: String(port), HOST: '127.0.0.1', RELAY_WORKERS: '0x2' } });
    children.push(child);
    const outcome = await waitFor(() => (child.exitCode !== null ? `exit ${child.exitCode}` : child.output().stdout.includes('listening on') ? 'serving' : undefined));
    child.kill('SIGKILL');
    expect(outcome).toBe('exit 1');
    expect(child.output().stderr).toContain('RELAY_WORKERS must be an integer from 1 to 64, got "0x2"');
  });

  it('config check refuses a channel `settings` key or value that does nothing (README: unknown keys or wrong types stop the start)', () => {
    const file = join(cwd, 'typo.yaml');
    writeFileSync(file, 'channels:\n  - { name: a, type: openai, base_url: "http://x", key: k, models: [m], settings: { api: respones, stream_usage: "false" } }\n');
    const result = runCli(['config', 'check', file], { cwd, env });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('channels.0.settings.api');
    expect(result.stderr).toContain('channels.0.settings.stream_usage');
  });

  it('config check refuses a max_body_mb that the start then crashes on (bodyLimit 0, with a stack)', () => {
    const file = join(cwd, 'tiny-body.yaml');
    writeFileSync(file, 'max_body_mb: 0.0000001\n');
    const result = runCli(['config', 'check', file], { cwd, env });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('max_body_mb');
  });
});

describe('documented whole-number settings', { timeout: 60_000 }, () => {
  it('UPLOAD_MAX_MB=abc stops the start even when uploads are off (README: a value out of range stops the start)', () => {
    expect(() => readEnvironment({ UPLOAD_MAX_MB: 'abc' })).toThrow(SettingError);
    expect(() => readEnvironment({ UPLOAD_MAX_MB: '-1' })).toThrow(SettingError);
  });

  for (const name of ['SYNC_FREQUENCY', 'SHUTDOWN_TIMEOUT'] as const) {
    it(`${name}=2147484 (seconds past a 32-bit timer) is refused or honoured, not turned into a 1 ms timer`, async () => {
      let accepted = true;
      try {
        readEnvironment({ [name]: '2147484' });
      } catch (error) {
        accepted = false;
        expect(error).toBeInstanceOf(SettingError);
      }
      if (!accepted) return;
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
      process.on('warning', onWarning);
      try {
        const gateway = await startTestGateway({ env: { [name]: '2147484' } });
        let versionReads = 0;
        const options = gateway.gateway.services.repositories.options;
        const get = options.get.bind(options);
        options.get = (...args: Parameters<typeof get>) => {
          versionReads += 1;
          return get(...args);
        };
        await new Promise((done) => setTimeout(done, 300));
        await gateway.close();
        await new Promise((done) => setTimeout(done, 50));
        // SYNC_FREQUENCY=2147484 polls the catalog version every ~1 ms (hundreds of reads in 300 ms); a
        // SHUTDOWN_TIMEOUT that large gives requests in flight 1 ms instead of 24 days.
        expect(warnings.filter((warning) => warning.startsWith('TimeoutOverflowWarning'))).toEqual([]);
        if (name === 'SYNC_FREQUENCY') expect(versionReads).toBeLessThan(5);
      } finally {
        process.off('warning', onWarning);
      }
    });
  }
});
