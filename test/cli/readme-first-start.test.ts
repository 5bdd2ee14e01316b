import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { cleanEnvironment, freePort, readme, readmeYaml, runCli, spawnCli, waitFor } from './support.js';

/**
 * README "Two commands": `npm start` = `node dist/cli/relay.js serve` on the embedded default (SQLite
 * `./data/relay.db`, no Redis). Run here from source (dist may be stale) in an empty working directory.
 */
describe('README first start', { timeout: 120_000 }, () => {
  const children: ReturnType<typeof spawnCli>[] = [];
  let upstream: FakeOpenaiUpstream | undefined;
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await upstream?.close();
  });

  it('starts with no configuration, creates ./data/relay.db and prints a working admin key, its curl line and how to make an API key', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'readme-start-'));
    const port = await freePort();
    const child = spawnCli(['serve'], { cwd, env: cleanEnvironment({ PORT: String(port) }) });
    children.push(child);
    const curlLine = await waitFor(() => /curl -H "Authorization: Bearer (sk-\S+)" (\S+)/.exec(child.output().stdout) ?? undefined);
    const [, key, url] = curlLine as unknown as [string, string, string];
    expect(existsSync(join(cwd, 'data', 'relay.db'))).toBe(true);
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(child.output().stdout).toContain('npx relay token create --name');
    child.kill('SIGTERM');
    const code = await new Promise((done) => child.once('exit', done));
    expect(code).toBe(0);
  });

  it('the README "First request" path: admin key from the banner → channel and price → `relay token create` → a chat call with the OpenAI SDK', async () => {
    upstream ??= await startFakeOpenaiUpstream();
    const cwd = mkdtempSync(join(tmpdir(), 'readme-first-request-'));
    const port = await freePort();
    const env = cleanEnvironment({ PORT: String(port), HOST: '127.0.0.1' });
    const child = spawnCli(['serve'], { cwd, env });
    children.push(child);
    const [, adminKey, url] = (await waitFor(() => /curl -H "Authorization: Bearer (sk-\S+)" (http:\/\/[^/]+)/.exec(child.output().stdout) ?? undefined)) as unknown as [string, string, string];
    const admin = (path: string, body: unknown) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // The README's two curl lines, against the fake upstream instead of api.openai.com.
    const section = readme().slice(readme().indexOf('### First request'));
    expect(section).toContain('"name":"openai","type":"openai","base_url":"https://api.openai.com","key":"sk-your-openai-key","models":["gpt-4o-mini"]');
    expect(section).toContain('"model":"gpt-4o-mini","input":0.15,"output":0.6');
    expect(section).toContain('npx relay token create --name my-first-key');
    expect((await admin('/api/admin/channels', { name: 'openai', type: 'openai', base_url: upstream.url, key: 'sk-your-openai-key', models: ['gpt-4o-mini'] })).status).toBe(200);
    expect((await admin('/api/admin/prices', { model: 'gpt-4o-mini', input: 0.15, output: 0.6 })).status).toBe(200);
    // `npx relay token create` is the built CLI; here the same command from source, in the gateway's directory.
    const created = runCli(['token', 'create', '--name', 'my-first-key'], { cwd, env });
    expect(created.stderr).toBe('');
    const apiKey = created.stdout.trim();
    expect(apiKey).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    // The running gateway takes the key within SYNC_FREQUENCY (5 s by default).
    const client = new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 });
    const completion = await waitFor(() => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }).catch(() => undefined), 15_000);
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  });

  it("the README's example config (placeholders filled in) is accepted by `relay config check`", () => {
    const cwd = mkdtempSync(join(tmpdir(), 'readme-config-'));
    const file = join(cwd, 'relay.yaml');
    writeFileSync(file, fillPlaceholders(readmeYaml(), 'https://api.openai.com'));
    const result = runCli(['config', 'check', file], { cwd, env: cleanEnvironment() });
    // README: `rate_limits: { per_ip: { rpm: 0 }, per_user: { rpm: 0, tpm: 0 } }   # 0 = off`
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('a first chat request with the README example config (rate_limits line as documented) and its token key', async () => {
    upstream ??= await startFakeOpenaiUpstream();
    const cwd = mkdtempSync(join(tmpdir(), 'readme-chat-'));
    const file = join(cwd, 'relay.yaml');
    // The example channel speaks the Responses API upstream (`settings.api: responses`); this fake speaks Chat.
    const yaml = fillPlaceholders(readmeYaml(), upstream.url).replace(/\n +api: responses +#[^\n]*/, '');
    writeFileSync(file, yaml);
    const port = await freePort();
    const child = spawnCli(['serve'], { cwd, env: cleanEnvironment({ PORT: String(port), HOST: '127.0.0.1', RELAY_CONFIG: file }) });
    children.push(child);
    const started = await waitFor(() => {
      const { stdout, stderr } = child.output();
      if (stdout.includes('listening on')) return 'listening';
      if (child.exitCode !== null) return `exited: ${stderr}`;
      return undefined;
    });
    expect(started).toBe('listening');
    const client = new OpenAI({ apiKey: tokenKey, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  });
});

const adminKey = `sk-${'a'.repeat(48)}`;
const tokenKey = `sk-${'t'.repeat(48)}`;

/** Only the `...` placeholders change; everything else is the README's text. */
function fillPlaceholders(yaml: string, baseUrl: string): string {
  return yaml
    .replace('admin_key: sk-...', `admin_key: ${adminKey}`)
    .replace(/(\n    key: )sk-\.\.\.( +# or keys)/, `$1sk-upstream-key$2`)
    .replace(/(\n    key: )sk-\.\.\.( +# optional)/, `$1${tokenKey}$2`)
    .replace('password: ...', 'password: alice-password')
    .replace('base_url: https://api.openai.com', `base_url: ${baseUrl}`);
}
