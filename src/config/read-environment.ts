import { isIP } from 'node:net';
import { SettingError } from './setting-error.js';

/** Process environment → typed settings. Pure: the caller passes the environment in. */
export interface Environment {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  configPath: string | undefined;
  adminKey: string | undefined;
  cryptoSecret: string;
  /**
   * SESSION_SECRET, which signs console session cookies; unset, the gateway generates one at its first start
   * and keeps it in the database (`ensureSessionSecret`), so that no install signs cookies with a public value.
   */
  sessionSecret: string | undefined;
  logLevel: string;
  /** Seconds between chunks of a stream before the upstream is abandoned. */
  streamingTimeoutSeconds: number;
  /** Seconds of silence toward a streaming client after which it gets an SSE comment; 0 = never. */
  streamKeepAliveSeconds: number;
  /** Seconds an answer whose client left is read on for its usage report, once produced whole; 0 = abort at once. */
  usageWaitSeconds: number;
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
  /** Seconds a shutdown waits for requests in flight before it aborts their upstream calls. */
  shutdownTimeoutSeconds: number;
  /** Seconds between task poll passes (and between two polls of one task); 0: this instance does not poll. */
  taskPollIntervalSeconds: number;
  /** A task not finished this many minutes after its submit is failed and refunded. */
  taskTimeoutMinutes: number;
  /**
   * Which proxies' X-Forwarded-For the client address is read from (Fastify's `trustProxy`): none (the
   * socket's address), all, or the listed addresses, CIDR ranges and named ranges.
   */
  trustProxy: TrustProxy;
  /** S3-compatible object storage for `/api/upload/presign`; undefined when not configured. */
  uploadStorage: UploadStorage | undefined;
}

export type TrustProxy = boolean | string[];

/** Where presigned uploads go (UPLOAD_S3_*): path-style S3 URLs, `{endpoint}/{bucket}/{key}`. */
export interface UploadStorage {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where an uploaded object can be read: `{publicBaseUrl}/{key}`. */
  publicBaseUrl: string;
  /** The largest upload presigned, in bytes (UPLOAD_MAX_MB); 0: no limit (a `content_length` is then optional). */
  maxBytes: number;
}

/** The ranges proxy-addr (Fastify's trustProxy) knows by name. */
const namedProxyRanges = ['loopback', 'linklocal', 'uniquelocal'];

/** pino's levels, plus `silent`. */
const logLevels = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * The longest wait a seconds setting may ask for (one day). Node's timers hold at most 2^31 - 1 ms (24.8
 * days) and turn a longer delay into 1 ms with a TimeoutOverflowWarning: SYNC_FREQUENCY=2147484 would poll
 * the catalog every millisecond and SHUTDOWN_TIMEOUT=2147484 would cut requests in flight at once.
 */
export const maximumTimerSeconds = 86_400;

const defaultDatabaseUrl = 'sqlite:./data/relay.db';
const insecureDefaultSecret = 'unified-relay-insecure-default-secret';

export function readEnvironment(env: Record<string, string | undefined>): Environment {
  const sessionSecret = nonEmpty(env.SESSION_SECRET);
  return {
    port: integerSetting(env, 'PORT', 3000, { maximum: 65_535 }),
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    databaseUrl: nonEmpty(env.DATABASE_URL) ?? nonEmpty(env.SQL_DSN) ?? defaultDatabaseUrl,
    redisUrl: nonEmpty(env.REDIS_URL) ?? nonEmpty(env.REDIS_CONN_STRING),
    configPath: nonEmpty(env.RELAY_CONFIG),
    adminKey: nonEmpty(env.RELAY_ADMIN_KEY),
    // new-api falls back to the session secret too, so one secret is enough for a small install.
    // Unset, keys stay readable under the built-in secret earlier versions used; `relay serve` warns of it.
    cryptoSecret: nonEmpty(env.CRYPTO_SECRET) ?? sessionSecret ?? insecureDefaultSecret,
    sessionSecret,
    logLevel: logLevelSetting(env),
    // Timeouts of 0 would be "none" to undici: a stalled upstream would hold its stream and reservation forever.
    streamingTimeoutSeconds: integerSetting(env, 'STREAMING_TIMEOUT', 300, { minimum: 1, maximum: maximumTimerSeconds }),
    streamKeepAliveSeconds: integerSetting(env, 'STREAM_KEEPALIVE_SECONDS', 20, { maximum: 3600 }),
    usageWaitSeconds: integerSetting(env, 'USAGE_WAIT_SECONDS', 5, { maximum: 300 }),
    // 0 turns the polling off: a single instance, or one whose Redis carries every change.
    syncFrequencySeconds: integerSetting(env, 'SYNC_FREQUENCY', 5, { maximum: maximumTimerSeconds }),
    connectTimeoutSeconds: integerSetting(env, 'RELAY_CONNECT_TIMEOUT', 10, { minimum: 1, maximum: maximumTimerSeconds }),
    firstByteTimeoutSeconds: integerSetting(env, 'RELAY_FIRST_BYTE_TIMEOUT', 300, { minimum: 1, maximum: maximumTimerSeconds }),
    nodeName: nonEmpty(env.NODE_NAME),
    maxUpstreamResponseMb: integerSetting(env, 'MAX_UPSTREAM_RESPONSE_MB', 64, { minimum: 1, maximum: 4096 }),
    sqliteCacheMb: integerSetting(env, 'SQLITE_CACHE_MB', 4, { minimum: 1, maximum: 65_536 }),
    heapGrowingPercent: integerSetting(env, 'HEAP_GROWING_PERCENT', 100, { maximum: 1000 }),
    shutdownTimeoutSeconds: integerSetting(env, 'SHUTDOWN_TIMEOUT', 30, { minimum: 1, maximum: maximumTimerSeconds }),
    taskPollIntervalSeconds: integerSetting(env, 'TASK_POLL_INTERVAL', 15, { maximum: 3600 }),
    taskTimeoutMinutes: integerSetting(env, 'TASK_TIMEOUT_MINUTES', 1440, { minimum: 1, maximum: 43_200 }),
    trustProxy: trustProxySetting(env),
    uploadStorage: uploadStorageSetting(env),
  };
}

const uploadStorageNames = ['UPLOAD_S3_ENDPOINT', 'UPLOAD_S3_BUCKET', 'UPLOAD_S3_ACCESS_KEY_ID', 'UPLOAD_S3_SECRET_ACCESS_KEY'] as const;

/** All four UPLOAD_S3_* settings, or none (uploads off); a partial set is a mistake worth stopping for. */
function uploadStorageSetting(env: Record<string, string | undefined>): UploadStorage | undefined {
  // Checked with or without storage: a mistyped limit must not lie unnoticed until storage is configured.
  const maxBytes = integerSetting(env, 'UPLOAD_MAX_MB', 0, { minimum: 0, maximum: 5 * 1024 }) * 1024 * 1024;
  const given = uploadStorageNames.filter((name) => nonEmpty(env[name]) !== undefined);
  if (given.length === 0) return undefined;
  const missing = uploadStorageNames.filter((name) => !given.includes(name));
  if (missing.length > 0) throw new SettingError(`Upload storage needs ${uploadStorageNames.join(', ')}; missing: ${missing.join(', ')}`);
  const endpoint = urlSetting(env, 'UPLOAD_S3_ENDPOINT') as string;
  const bucket = nonEmpty(env.UPLOAD_S3_BUCKET) as string;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new SettingError(`Environment variable UPLOAD_S3_BUCKET must be an S3 bucket name, got "${bucket}"`);
  return {
    endpoint,
    bucket,
    region: nonEmpty(env.UPLOAD_S3_REGION) ?? 'us-east-1',
    accessKeyId: nonEmpty(env.UPLOAD_S3_ACCESS_KEY_ID) as string,
    secretAccessKey: nonEmpty(env.UPLOAD_S3_SECRET_ACCESS_KEY) as string,
    publicBaseUrl: urlSetting(env, 'UPLOAD_PUBLIC_BASE_URL') ?? `${endpoint}/${bucket}`,
    maxBytes,
  };
}

/** An http(s) URL without a trailing slash. */
function urlSetting(env: Record<string, string | undefined>, name: string): string | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingError(`Environment variable ${name} must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingError(`Environment variable ${name} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/**
 * TRUST_PROXY: unset or `false` — the address the connection comes from (a client that connects directly
 * cannot choose its address by writing X-Forwarded-For); `true` — the leftmost X-Forwarded-For address
 * (only behind a proxy that overwrites the header); else a comma-separated list of the proxies' addresses,
 * CIDR ranges or `loopback` / `linklocal` / `uniquelocal`: the address is the nearest one in
 * X-Forwarded-For that is not a trusted proxy. (Fastify refuses hop counts: they cannot check the peer.)
 */
function trustProxySetting(env: Record<string, string | undefined>): TrustProxy {
  const raw = nonEmpty(env.TRUST_PROXY);
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (namedProxyRanges.includes(entry)) continue;
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const width = family === 4 ? 32 : 128;
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= width);
    if (family === 0 || !validBits || rest.length > 0) {
      throw new SettingError(`Environment variable TRUST_PROXY must be false, true, or a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal, got "${raw}"`);
    }
  }
  return entries;
}

/** True when channel keys are encrypted with the built-in secret (neither CRYPTO_SECRET nor SESSION_SECRET set). */
export function usesInsecureDefaultSecret(environment: Environment): boolean {
  return environment.cryptoSecret === insecureDefaultSecret;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function logLevelSetting(env: Record<string, string | undefined>): string {
  const level = nonEmpty(env.LOG_LEVEL)?.toLowerCase() ?? 'info';
  if (!logLevels.includes(level)) throw new SettingError(`Environment variable LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${env.LOG_LEVEL}"`);
  return level;
}

/**
 * A whole number written in decimal digits (not `0x10`, `1e3` or `12.0`), from `minimum` (0 unless a zero
 * would make no sense) to `maximum`.
 */
function integerSetting(env: Record<string, string | undefined>, name: string, fallback: number, bounds: { minimum?: number; maximum?: number } = {}): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const { minimum = 0, maximum = Number.MAX_SAFE_INTEGER } = bounds;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
    const range = maximum === Number.MAX_SAFE_INTEGER ? (minimum === 0 ? 'a non-negative integer' : `an integer of at least ${minimum}`) : `an integer from ${minimum} to ${maximum}`;
    throw new SettingError(`Environment variable ${name} must be ${range}, got "${raw}"`);
  }
  return value;
}
