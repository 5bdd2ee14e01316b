import { describe, expect, it } from 'vitest';
import { readEnvironment, usesInsecureDefaultSecret } from './read-environment.js';
import { SettingError } from './setting-error.js';

describe('readEnvironment', () => {
  it('falls back to the embedded defaults on an empty environment', () => {
    const environment = readEnvironment({});
    expect(environment).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: 'sqlite:./data/relay.db',
      redisUrl: undefined,
      configPath: undefined,
      adminKey: undefined,
      logLevel: 'info',
      sqliteCacheMb: 4,
      maxUpstreamResponseMb: 64,
      heapGrowingPercent: 100,
      trustProxy: false,
    });
    expect(usesInsecureDefaultSecret(environment)).toBe(true);
  });

  it('reads TRUST_PROXY as off, on, or the trusted proxies, and refuses anything else', () => {
    expect(readEnvironment({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(readEnvironment({ TRUST_PROXY: 'TRUE' }).trustProxy).toBe(true);
    expect(readEnvironment({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1 ,::1,fd00::/8,loopback' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', 'loopback']);
    for (const bad of ['2', 'yes', '10.0.0.0/33', '300.1.1.1', '10.0.0.0/8/1', 'proxy.example.com']) {
      expect(() => readEnvironment({ TRUST_PROXY: bad }), bad).toThrow(SettingError);
    }
  });

  it('reads every documented variable', () => {
    const environment = readEnvironment({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://relay@db/relay',
      REDIS_URL: 'redis://cache:6379',
      RELAY_CONFIG: './relay.yaml',
      RELAY_ADMIN_KEY: 'sk-admin',
      CRYPTO_SECRET: 'crypto',
      SESSION_SECRET: 'session',
      LOG_LEVEL: 'debug',
      SQLITE_CACHE_MB: '32',
      MAX_UPSTREAM_RESPONSE_MB: '8',
      HEAP_GROWING_PERCENT: '0',
    });
    expect(environment).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://relay@db/relay',
      redisUrl: 'redis://cache:6379',
      configPath: './relay.yaml',
      adminKey: 'sk-admin',
      cryptoSecret: 'crypto',
      sessionSecret: 'session',
      logLevel: 'debug',
      sqliteCacheMb: 32,
      maxUpstreamResponseMb: 8,
      heapGrowingPercent: 0,
    });
    expect(usesInsecureDefaultSecret(environment)).toBe(false);
  });

  it('accepts SQL_DSN and REDIS_CONN_STRING as aliases', () => {
    const environment = readEnvironment({ SQL_DSN: 'mysql://root@db/relay', REDIS_CONN_STRING: 'redis://cache:6379/1' });
    expect(environment.databaseUrl).toBe('mysql://root@db/relay');
    expect(environment.redisUrl).toBe('redis://cache:6379/1');
  });

  it('prefers DATABASE_URL and REDIS_URL over their aliases', () => {
    const environment = readEnvironment({
      DATABASE_URL: 'postgres://primary/relay',
      SQL_DSN: 'mysql://alias/relay',
      REDIS_URL: 'redis://primary',
      REDIS_CONN_STRING: 'redis://alias',
    });
    expect(environment.databaseUrl).toBe('postgres://primary/relay');
    expect(environment.redisUrl).toBe('redis://primary');
  });

  it('treats blank values as unset', () => {
    const environment = readEnvironment({ PORT: ' ', DATABASE_URL: '', SQL_DSN: 'sqlite:./alias.db', REDIS_URL: '  ', RELAY_ADMIN_KEY: '' });
    expect(environment.port).toBe(3000);
    expect(environment.databaseUrl).toBe('sqlite:./alias.db');
    expect(environment.redisUrl).toBeUndefined();
    expect(environment.adminKey).toBeUndefined();
  });

  it('uses SESSION_SECRET to encrypt channel keys when CRYPTO_SECRET is absent', () => {
    const environment = readEnvironment({ SESSION_SECRET: 'only-session' });
    expect(environment.cryptoSecret).toBe('only-session');
    expect(usesInsecureDefaultSecret(environment)).toBe(false);
  });

  it.each(['abc', '-1', '3.5', '0x10', '1e3', '65536'])('refuses PORT=%s naming the variable and its range', (value) => {
    expect(() => readEnvironment({ PORT: value })).toThrow(`Environment variable PORT must be an integer from 0 to 65535, got "${value}"`);
  });

  it('refuses with a SettingError, which the CLI prints without a stack', () => {
    expect(() => readEnvironment({ PORT: 'abc' })).toThrow(SettingError);
  });

  it.each(['SQLITE_CACHE_MB', 'MAX_UPSTREAM_RESPONSE_MB'])('refuses %s=0: a cache or a bound of nothing', (name) => {
    expect(() => readEnvironment({ [name]: '0' })).toThrow(new RegExp(`^Environment variable ${name} must be an integer from 1 to \\d+, got "0"$`));
    expect(readEnvironment({ [name]: '1' })).toBeDefined();
  });

  it.each(['STREAMING_TIMEOUT', 'RELAY_CONNECT_TIMEOUT', 'RELAY_FIRST_BYTE_TIMEOUT', 'SHUTDOWN_TIMEOUT'])('refuses %s=0: undici reads a 0 timeout as none at all', (name) => {
    expect(() => readEnvironment({ [name]: '0' })).toThrow(`Environment variable ${name} must be an integer from 1 to 86400, got "0"`);
  });

  it.each(['STREAMING_TIMEOUT', 'RELAY_CONNECT_TIMEOUT', 'RELAY_FIRST_BYTE_TIMEOUT', 'SHUTDOWN_TIMEOUT', 'SYNC_FREQUENCY'])(
    'refuses %s past one day: a node timer past 2^31 - 1 ms fires after 1 ms',
    (name) => {
      expect(readEnvironment({ [name]: '86400' })).toBeDefined();
      expect(() => readEnvironment({ [name]: '86401' })).toThrow(`Environment variable ${name} must be an integer from`);
      expect(() => readEnvironment({ [name]: '2147484' })).toThrow(SettingError);
    },
  );

  it('checks UPLOAD_MAX_MB when upload storage is not configured too', () => {
    expect(() => readEnvironment({ UPLOAD_MAX_MB: 'abc' })).toThrow('Environment variable UPLOAD_MAX_MB must be an integer from 0 to 5120, got "abc"');
    expect(() => readEnvironment({ UPLOAD_MAX_MB: '-1' })).toThrow(SettingError);
    expect(readEnvironment({ UPLOAD_MAX_MB: '20' }).uploadStorage).toBeUndefined();
  });

  it('refuses a bound past reason written as an exponent or too large', () => {
    expect(() => readEnvironment({ MAX_UPSTREAM_RESPONSE_MB: '1e9' })).toThrow('MAX_UPSTREAM_RESPONSE_MB');
    expect(() => readEnvironment({ MAX_UPSTREAM_RESPONSE_MB: '4097' })).toThrow('from 1 to 4096');
  });

  it('takes a known log level only, in any case', () => {
    expect(readEnvironment({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    expect(() => readEnvironment({ LOG_LEVEL: 'verbose' })).toThrow('Environment variable LOG_LEVEL must be one of silent, fatal, error, warn, info, debug, trace, got "verbose"');
  });

  it('reads upload storage from all four UPLOAD_S3_* settings, or none, never some', () => {
    const storage = { UPLOAD_S3_ENDPOINT: 'https://s3.example.com/', UPLOAD_S3_BUCKET: 'relay-files', UPLOAD_S3_ACCESS_KEY_ID: 'AKID', UPLOAD_S3_SECRET_ACCESS_KEY: 'secret' };
    expect(readEnvironment({}).uploadStorage).toBeUndefined();
    expect(readEnvironment(storage).uploadStorage).toEqual({
      endpoint: 'https://s3.example.com',
      bucket: 'relay-files',
      region: 'us-east-1',
      accessKeyId: 'AKID',
      secretAccessKey: 'secret',
      publicBaseUrl: 'https://s3.example.com/relay-files',
      maxBytes: 0,
    });
    expect(readEnvironment({ ...storage, UPLOAD_MAX_MB: '20' }).uploadStorage?.maxBytes).toBe(20 * 1024 * 1024);
    expect(() => readEnvironment({ ...storage, UPLOAD_MAX_MB: '-1' })).toThrow(SettingError);
    expect(readEnvironment({ ...storage, UPLOAD_S3_REGION: 'eu-west-3', UPLOAD_PUBLIC_BASE_URL: 'https://cdn.example.com/' }).uploadStorage).toMatchObject({ region: 'eu-west-3', publicBaseUrl: 'https://cdn.example.com' });
    expect(() => readEnvironment({ UPLOAD_S3_ENDPOINT: 'https://s3.example.com', UPLOAD_S3_BUCKET: 'b' })).toThrow('missing: UPLOAD_S3_ACCESS_KEY_ID, UPLOAD_S3_SECRET_ACCESS_KEY');
    expect(() => readEnvironment({ ...storage, UPLOAD_S3_ENDPOINT: 'ftp://files' })).toThrow(SettingError);
    expect(() => readEnvironment({ ...storage, UPLOAD_S3_BUCKET: 'Bad_Bucket' })).toThrow('UPLOAD_S3_BUCKET');
  });
});
