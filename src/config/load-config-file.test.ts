import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigFileError, loadConfigFile, parseConfigText } from './load-config-file.js';

const tokenKey = `sk-${'a'.repeat(48)}`;

/** The example of issue #2, with every documented key. */
const exampleYaml = `
admin_key: sk-admin-key-for-tests
quota_per_unit: 500000
max_body_mb: 64
groups: { default: 1, vip: 0.5 }
prices:
  gpt-4o-mini: { input: 0.15, output: 0.6, cache_read: 0.075, cache_write: 0.1875 }
  dall-e-3: { per_call: 0.04 }
  claude-sonnet-4-5: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, cache_write_1h: 6 }
  gpt-realtime: { input: 4, output: 16, audio_input: 32, audio_output: 64 }
  gemini-image: { input: 2, output: 12, image_input: 4, image_output: 120 }
channels:
  - name: openai-main
    type: openai
    base_url: https://api.openai.com
    key: sk-upstream
    models: [gpt-4o-mini]
    groups: [default]
    priority: 0
    weight: 1
    model_mapping: { alias: real-name }
    enabled: true
  - name: anthropic-pool
    type: anthropic
    base_url: https://api.anthropic.com
    keys: [sk-ant-1, sk-ant-2]
    models: [claude-3-5-haiku]
users:
  - { username: alice, password: secret, role: user, group: default, quota: 1000000 }
tokens:
  - name: alice-laptop
    user: alice
    key: ${tokenKey}
    group: default
    quota: 500000
    model_limits: [gpt-4o-mini]
    expires_at: 0
    rate_limit: { rpm: 60, tpm: 200000 }
`;

const directory = mkdtempSync(join(tmpdir(), 'relay-config-test-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function writeConfig(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

async function problemOf(path: string): Promise<ConfigFileError> {
  const error = await loadConfigFile(path).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ConfigFileError);
  return error as ConfigFileError;
}

describe('loadConfigFile', () => {
  it('reads the full example YAML with defaults filled in', async () => {
    const config = await loadConfigFile(writeConfig('relay.yaml', exampleYaml));
    expect(config).toMatchObject({
      admin_key: 'sk-admin-key-for-tests',
      quota_per_unit: 500000,
      max_body_mb: 64,
      groups: { default: 1, vip: 0.5 },
      prices: {
        'gpt-4o-mini': { input: 0.15, output: 0.6, cache_read: 0.075, cache_write: 0.1875 },
        'dall-e-3': { per_call: 0.04 },
        'claude-sonnet-4-5': { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, cache_write_1h: 6 },
        'gpt-realtime': { input: 4, output: 16, audio_input: 32, audio_output: 64 },
        'gemini-image': { input: 2, output: 12, image_input: 4, image_output: 120 },
      },
      users: [{ username: 'alice', password: 'secret', role: 'user', group: 'default', quota: 1000000, enabled: true }],
      tokens: [{ name: 'alice-laptop', user: 'alice', key: tokenKey, group: 'default', quota: 500000, model_limits: ['gpt-4o-mini'], expires_at: 0, rate_limit: { rpm: 60, tpm: 200000 } }],
    });
    expect(config.channels?.[0]).toMatchObject({ name: 'openai-main', key: 'sk-upstream', model_mapping: { alias: 'real-name' }, enabled: true });
    // Defaults of omitted channel keys.
    expect(config.channels?.[1]).toMatchObject({ keys: ['sk-ant-1', 'sk-ant-2'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true });
  });

  it('reads the same configuration written as JSON', async () => {
    const fromYaml = await loadConfigFile(writeConfig('same.yaml', exampleYaml));
    const fromJson = await loadConfigFile(writeConfig('same.json', JSON.stringify(parseYaml(exampleYaml), null, 2)));
    expect(fromJson).toEqual(fromYaml);
  });

  it('accepts an empty file as an empty configuration', async () => {
    expect(await loadConfigFile(writeConfig('empty.yaml', ''))).toEqual({});
  });

  it('stops on an unknown root key, naming the key and the file', async () => {
    const path = writeConfig('root-typo.yaml', 'admin_key: sk-admin-key-for-tests\nquota_per_unti: 5\n');
    const error = await problemOf(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain('quota_per_unti');
    expect(error.filePath).toBe(path);
  });

  it('stops on an unknown nested key, naming its full path and the file', async () => {
    const path = writeConfig('nested-typo.yaml', exampleYaml.replace('    priority: 0\n', '    prioirty: 0\n'));
    const error = await problemOf(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain('channels.0.prioirty');
  });

  it('stops on an unknown key inside a token rate limit', async () => {
    const path = writeConfig('rate-typo.json', JSON.stringify({ tokens: [{ name: 't', rate_limit: { rpd: 5 } }] }));
    const error = await problemOf(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain('tokens.0.rate_limit.rpd');
  });

  it('stops on a wrong type, naming the key and the file', async () => {
    const path = writeConfig('wrong-type.yaml', exampleYaml.replace('    weight: 1\n', '    weight: heavy\n'));
    const error = await problemOf(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain('channels.0.weight');
    expect(error.message).toMatch(/number/i);
  });

  it('stops on a root value of the wrong type', async () => {
    const path = writeConfig('wrong-root-type.yaml', 'max_body_mb: "lots"\n');
    const error = await problemOf(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain('max_body_mb');
  });

  it('refuses a token key that is not sk- followed by 48 letters or digits', async () => {
    const path = writeConfig('bad-key.yaml', 'tokens:\n  - { name: t, key: sk-short }\n');
    const error = await problemOf(path);
    expect(error.message).toContain('tokens.0.key');
  });

  it('refuses a channel with neither key nor keys', async () => {
    const path = writeConfig('no-key.yaml', 'channels:\n  - { name: c, type: openai, base_url: "https://x.example", models: [m] }\n');
    const error = await problemOf(path);
    expect(error.message).toContain('channels.0.key');
  });

  it('refuses a channel base_url with a user or password, which would never be sent upstream', async () => {
    const path = writeConfig('userinfo.yaml', 'channels:\n  - { name: c, type: openai, base_url: "https://proxy-user:proxy-pass@x.example/v1", key: k, models: [m] }\n');
    const error = await problemOf(path);
    expect(error.problems).toEqual([expect.stringContaining('`channels.0.base_url`: must not carry a user or password')]);
    expect(error.message).toContain("channel's `key`");
    expect(error.message).not.toContain('proxy-pass');
  });

  it('reports every problem at once', async () => {
    const path = writeConfig('several.yaml', 'max_body_mb: big\nusers:\n  - { username: bob, quota: -1, colour: red }\n');
    const error = await problemOf(path);
    expect(error.problems.length).toBeGreaterThanOrEqual(3);
    expect(error.message).toContain('max_body_mb');
    expect(error.message).toContain('users.0.quota');
    expect(error.message).toContain('users.0.colour');
  });

  it('stops on text that is neither YAML nor JSON, naming the file', async () => {
    const path = writeConfig('broken.yaml', 'channels: [\n');
    const error = await problemOf(path);
    expect(error.message).toContain(path);
  });

  it('stops on a missing file, naming it', async () => {
    const path = join(directory, 'does-not-exist.yaml');
    const error = await problemOf(path);
    expect(error.message).toContain(path);
  });
});

describe('parseConfigText', () => {
  it('names the given path in its error', () => {
    expect(() => parseConfigText('unknown: 1', '/etc/relay/relay.yaml')).toThrow(/\/etc\/relay\/relay\.yaml[\s\S]*unknown/);
  });
});

describe('rate limit range', () => {
  it('refuses a rate limit above what the INTEGER column holds, naming the key', () => {
    expect(() => parseConfigText('tokens:\n  - { name: t, rate_limit: { tpm: 3000000000 } }\n', 'limits.yaml')).toThrow(/tokens\.0\.rate_limit\.tpm/);
  });
});

describe('balance and expiry range', () => {
  it('refuses a user or token quota past Number.MAX_SAFE_INTEGER, naming the key', () => {
    expect(() => parseConfigText('users:\n  - { username: u, quota: 1e300 }\n', 'q.yaml')).toThrow(/users\.0\.quota/);
    expect(() => parseConfigText('tokens:\n  - { name: t, quota: 9007199254740992 }\n', 'q.yaml')).toThrow(/tokens\.0\.quota/);
    expect(parseConfigText('tokens:\n  - { name: t, quota: 9007199254740991 }\n', 'q.yaml').tokens?.[0]?.quota).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses a token expires_at past Number.MAX_SAFE_INTEGER, naming the key', () => {
    expect(() => parseConfigText('tokens:\n  - { name: t, expires_at: 1e300 }\n', 'e.yaml')).toThrow(/tokens\.0\.expires_at/);
  });
});

describe('site-wide rate limits', () => {
  it('takes 0 as off for per_ip and per_user alike, as the README example writes them', () => {
    const config = parseConfigText('rate_limits: { per_ip: { rpm: 0 }, per_user: { rpm: 0, tpm: 0 } }\n', 'r.yaml');
    expect(config.rate_limits).toEqual({ per_ip: { rpm: 0 }, per_user: { rpm: 0, tpm: 0 } });
  });

  it('still refuses a negative or fractional site limit, and a token limit of 0', () => {
    expect(() => parseConfigText('rate_limits: { per_user: { tpm: -1 } }\n', 'r.yaml')).toThrow(/rate_limits\.per_user\.tpm/);
    expect(() => parseConfigText('rate_limits: { per_user: { rpm: 1.5 } }\n', 'r.yaml')).toThrow(/rate_limits\.per_user\.rpm/);
    expect(() => parseConfigText('tokens:\n  - { name: t, rate_limit: { rpm: 0 } }\n', 'r.yaml')).toThrow(/tokens\.0\.rate_limit\.rpm/);
  });
});

describe('max_body_mb range', () => {
  it('refuses a limit under a thousandth of a MiB (Fastify would get a bodyLimit of 0) or over 1024', () => {
    expect(() => parseConfigText('max_body_mb: 0.0000001\n', 'b.yaml')).toThrow(/max_body_mb`: must be from 0\.001 to 1024/);
    expect(() => parseConfigText('max_body_mb: 4096\n', 'b.yaml')).toThrow(/max_body_mb/);
    expect(parseConfigText('max_body_mb: 0.001\n', 'b.yaml').max_body_mb).toBe(0.001);
    expect(parseConfigText('max_body_mb: 1024\n', 'b.yaml').max_body_mb).toBe(1024);
  });
});

describe('channel settings', () => {
  const channel = (type: string, settings: string) => `channels:\n  - { name: c, type: ${type}, base_url: "https://x.example", key: k, models: [m], settings: ${settings} }\n`;

  it('takes every key the relay reads, with its type', () => {
    const config = parseConfigText(channel('openai', '{ api: responses, stream_usage: false, replay_reasoning: true, max_tokens: { m: 8192 }, max_tokens_field: max_completion_tokens, asset_api: true }'), 's.yaml');
    expect(config.channels?.[0]?.settings).toEqual({ api: 'responses', stream_usage: false, replay_reasoning: true, max_tokens: { m: 8192 }, max_tokens_field: 'max_completion_tokens', asset_api: true });
    expect(parseConfigText(channel('anthropic', '{ max_tokens: 8192 }'), 's.yaml').channels?.[0]?.settings).toEqual({ max_tokens: 8192 });
  });

  it('refuses a misspelt value, a string for a boolean and an unknown key, naming each path', () => {
    let message = '';
    try {
      parseConfigText(channel('openai', '{ api: respones, stream_usage: "false", max_token: 5 }'), 's.yaml');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('channels.0.settings.api');
    expect(message).toContain('channels.0.settings.stream_usage');
    expect(message).toContain('channels.0.settings.max_token');
  });

  it('refuses a max_tokens that is not a positive whole number', () => {
    expect(() => parseConfigText(channel('openai', '{ max_tokens: 0 }'), 's.yaml')).toThrow(/channels\.0\.settings\.max_tokens/);
    expect(() => parseConfigText(channel('openai', '{ max_tokens: { m: "8k" } }'), 's.yaml')).toThrow(/channels\.0\.settings\.max_tokens/);
  });

  it('takes reasoning_effort on every text channel type, and refuses it on the others', () => {
    for (const type of ['openai', 'anthropic', 'gemini']) expect(parseConfigText(channel(type, '{ reasoning_effort: false }'), 's.yaml').channels?.[0]?.settings.reasoning_effort).toBe(false);
    expect(() => parseConfigText(channel('suno', '{ reasoning_effort: true }'), 's.yaml')).toThrow(/channels\.0\.settings\.reasoning_effort`: applies to openai, anthropic and gemini channels only/);
  });

  it('refuses an openai-only setting on a channel of another type, where it would do nothing', () => {
    expect(() => parseConfigText(channel('anthropic', '{ api: responses }'), 's.yaml')).toThrow(/channels\.0\.settings\.api`: applies to openai channels only/);
  });
});
