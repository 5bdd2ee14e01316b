/** Process environment → typed settings. Pure: the caller passes the environment in. */
export interface Environment {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  configPath: string | undefined;
  adminKey: string | undefined;
  cryptoSecret: string;
  sessionSecret: string;
  logLevel: string;
  /** Seconds between chunks of a stream before the upstream is abandoned. */
  streamingTimeoutSeconds: number;
  /** Seconds between polls of the catalog version when no Redis carries invalidations. */
  syncFrequencySeconds: number;
  connectTimeoutSeconds: number;
  /** Seconds until an upstream's response headers arrive. */
  firstByteTimeoutSeconds: number;
  /** Names this instance for its quota reservations; default `hostname:port`. */
  nodeName: string | undefined;
  /** The most of an upstream answer that is read whole (non-streaming answers), in MiB. */
  maxUpstreamResponseMb: number;
  /** SQLite: the serving connection's page cache in MB. */
  sqliteCacheMb: number;
  /**
   * How far V8 lets the old generation grow past what survived its last full collection, in percent;
   * 0 keeps V8's own factor (up to 300 % on a machine with much memory). See tune-heap-growth.ts.
   */
  heapGrowingPercent: number;
}

const defaultDatabaseUrl = 'sqlite:./data/relay.db';
const insecureDefaultSecret = 'unified-relay-insecure-default-secret';

export function readEnvironment(env: Record<string, string | undefined>): Environment {
  const sessionSecret = nonEmpty(env.SESSION_SECRET) ?? insecureDefaultSecret;
  return {
    port: integerSetting(env, 'PORT', 3000),
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    databaseUrl: nonEmpty(env.DATABASE_URL) ?? nonEmpty(env.SQL_DSN) ?? defaultDatabaseUrl,
    redisUrl: nonEmpty(env.REDIS_URL) ?? nonEmpty(env.REDIS_CONN_STRING),
    configPath: nonEmpty(env.RELAY_CONFIG),
    adminKey: nonEmpty(env.RELAY_ADMIN_KEY),
    // new-api falls back to the session secret too, so one secret is enough for a small install.
    cryptoSecret: nonEmpty(env.CRYPTO_SECRET) ?? sessionSecret,
    sessionSecret,
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    streamingTimeoutSeconds: integerSetting(env, 'STREAMING_TIMEOUT', 300),
    syncFrequencySeconds: integerSetting(env, 'SYNC_FREQUENCY', 5),
    connectTimeoutSeconds: integerSetting(env, 'RELAY_CONNECT_TIMEOUT', 10),
    firstByteTimeoutSeconds: integerSetting(env, 'RELAY_FIRST_BYTE_TIMEOUT', 300),
    nodeName: nonEmpty(env.NODE_NAME),
    maxUpstreamResponseMb: integerSetting(env, 'MAX_UPSTREAM_RESPONSE_MB', 64, 1),
    sqliteCacheMb: integerSetting(env, 'SQLITE_CACHE_MB', 4, 1),
    heapGrowingPercent: integerSetting(env, 'HEAP_GROWING_PERCENT', 100),
  };
}

export function usesInsecureDefaultSecret(environment: Environment): boolean {
  return environment.sessionSecret === insecureDefaultSecret || environment.cryptoSecret === insecureDefaultSecret;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** A whole number ≥ `minimum` (0 unless a zero would make no sense: a cache or a bound of size 0). */
function integerSetting(env: Record<string, string | undefined>, name: string, fallback: number, minimum = 0): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) {
    const what = minimum === 0 ? 'a non-negative integer' : `an integer of at least ${minimum}`;
    throw new Error(`Environment variable ${name} must be ${what}, got "${raw}"`);
  }
  return value;
}
