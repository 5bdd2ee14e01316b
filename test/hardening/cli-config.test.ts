/**
 * The CLI and its configuration: a bad config file or environment variable gives a message naming the key,
 * exit 1, and never a stack trace or a silent default.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvironment } from '../../src/config/read-environment.js';
import { SettingError } from '../../src/config/setting-error.js';

const directory = mkdtempSync(join(tmpdir(), 'relay-cli-config-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const baseEnv = { ...process.env, DATABASE_URL: `sqlite:${join(directory, 'relay.db')}`, LOG_LEVEL: 'silent', CRYPTO_SECRET: 'cli-test', SESSION_SECRET: 'cli-test', PORT: '0', HOST: '127.0.0.1' };

function relay(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/relay.ts', ...args], { env: { ...baseEnv, ...env }, encoding: 'utf8', timeout: 30_000, cwd: process.cwd() });
}

function file(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

const stackFrame = /\n\s+at .+\(.*:\d+:\d+\)|\n\s+at .+:\d+:\d+/;

describe('config check', { timeout: 60_000 }, () => {
  const refused: [string, string, RegExp][] = [
    ['malformed YAML', 'channels: [\n  - name: x\n', /not valid YAML or JSON/],
    ['malformed JSON', '{"channels": [}', /not valid YAML or JSON/],
    ['unknown key', 'quota_per_unit: 1\nqouta_display_type: USD\n', /unknown key `qouta_display_type`/],
    ['wrong type', 'quota_per_unit: "abc"\n', /`quota_per_unit`/],
  ];
  for (const [label, text, message] of refused) {
    it(`refuses ${label} with a message naming it, exit 1, no stack trace`, () => {
      const result = relay(['config', 'check', file(`${label.replace(/ /g, '-')}.yaml`, text)]);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(stackFrame);
    });
  }

  it('refuses a name used twice in one list (channels, users, tokens) and a model_mapping loop, naming the entry', () => {
    const channel = (name: string, mapping = '{}') => `{ name: ${name}, type: openai, base_url: "http://x.example", key: k, models: [m1, m2], model_mapping: ${mapping} }`;
    const cases: [string, string, RegExp][] = [
      ['channels', `channels:\n  - ${channel('twin')}\n  - ${channel('twin')}\n`, /channels\.1\.name/],
      ['users', 'users:\n  - { username: twin }\n  - { username: twin }\n', /users\.1\.username/],
      ['tokens', 'users:\n  - { username: u }\ntokens:\n  - { name: twin, user: u }\n  - { name: twin, user: u }\n', /tokens\.1\.name/],
      ['model_mapping loop', `channels:\n  - ${channel('loop', '{ m1: m2, m2: m1 }')}\n`, /channels\.0\.model_mapping/],
    ];
    for (const [label, text, entry] of cases) {
      const result = relay(['config', 'check', file(`twice-${label.replace(/ /g, '-')}.yaml`, text)]);
      expect(result.status, label).toBe(1);
      expect(result.stderr, label).toMatch(entry);
      expect(result.stderr, label).not.toMatch(stackFrame);
    }
  });

  it('serve with a token naming a user in neither the file nor the database exits 1 with one line naming the token and the user', () => {
    const path = file('ghost.yaml', 'tokens:\n  - { name: lost-token, user: ghost }\n');
    const result = relay(['serve'], { RELAY_CONFIG: path, DATABASE_URL: `sqlite:${join(directory, 'ghost.db')}` });
    expect(result.status).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('lost-token');
    expect(lines[0]).toContain('ghost');
  });

  it('a config that passes `config check` but cannot start (its token names an unknown user) fails at start without a stack trace', () => {
    const path = file('ghost-start.yaml', 'tokens:\n  - { name: t, user: ghost }\n');
    expect(relay(['config', 'check', path]).status).toBe(0);
    const result = relay(['serve'], { RELAY_CONFIG: path, DATABASE_URL: `sqlite:${join(directory, 'ghost-start.db')}` });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/ghost/);
    expect(result.stderr).not.toMatch(stackFrame);
  });
});

describe('environment variables', { timeout: 60_000 }, () => {
  const cli: [command: string, name: string, value: string, message: string][] = [
    ['migrate', 'PORT', 'abc', 'Environment variable PORT must be an integer from 0 to 65535, got "abc"'],
    ['migrate', 'SQLITE_CACHE_MB', '-1', 'Environment variable SQLITE_CACHE_MB must be an integer from 1 to 65536, got "-1"'],
    ['migrate', 'DATABASE_URL', 'garbage', 'DATABASE_URL must start with sqlite:, postgres:// or mysql:// (got "garbage")'],
    ['serve', 'PORT', '99999', 'Environment variable PORT must be an integer from 0 to 65535, got "99999"'],
    ['serve', 'LOG_LEVEL', 'verbose', 'Environment variable LOG_LEVEL must be one of silent, fatal, error, warn, info, debug, trace, got "verbose"'],
    ['serve', 'SHUTDOWN_TIMEOUT', '0', 'Environment variable SHUTDOWN_TIMEOUT must be an integer from 1 to 86400, got "0"'],
  ];
  for (const [command, name, value, message] of cli) {
    it(`${name}=${value}: relay ${command} prints only the message naming ${name} and what it accepts, exit 1`, () => {
      const result = relay([command], { [name]: value });
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(`${message}\n`);
    });
  }

  // readEnvironment is pure: each value below would otherwise change behaviour silently.
  const refused: [string, string, string, string][] = [
    ['STREAMING_TIMEOUT', '0', 'an integer from 1 to 86400', 'undici bodyTimeout 0 = no stall guard: a silent upstream would hold its stream and reservation forever'],
    ['RELAY_FIRST_BYTE_TIMEOUT', '0', 'an integer from 1 to 86400', 'undici headersTimeout 0 = wait forever for headers'],
    ['RELAY_CONNECT_TIMEOUT', '0', 'an integer from 1 to 86400', 'undici connect timeout 0 = none'],
    ['SYNC_FREQUENCY', '-1', 'an integer from 0 to 86400', '0 turns the polling off; below that means nothing'],
    ['SHUTDOWN_TIMEOUT', '0', 'an integer from 1 to 86400', 'a shutdown must give requests in flight some time'],
    ['MAX_UPSTREAM_RESPONSE_MB', '1e9', 'an integer from 1 to 4096', 'exponent notation, and no real bound'],
    ['PORT', '99999', 'an integer from 0 to 65535', 'not a TCP port'],
    ['PORT', '0x10', 'an integer from 0 to 65535', 'hex would listen on port 16'],
    ['HEAP_GROWING_PERCENT', '1001', 'an integer from 0 to 1000', 'past the supported range'],
  ];
  for (const [name, value, range, why] of refused) {
    it(`${name}=${value} is a SettingError naming ${name} and its range (${why})`, () => {
      expect(() => readEnvironment({ [name]: value })).toThrow(SettingError);
      expect(() => readEnvironment({ [name]: value })).toThrow(`Environment variable ${name} must be ${range}, got "${value}"`);
    });
  }

  it('SHUTDOWN_TIMEOUT is 30 seconds unless set', () => {
    expect(readEnvironment({}).shutdownTimeoutSeconds).toBe(30);
    expect(readEnvironment({ SHUTDOWN_TIMEOUT: '2' }).shutdownTimeoutSeconds).toBe(2);
  });
});
