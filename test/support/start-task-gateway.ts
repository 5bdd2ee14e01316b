import type { PriceInput } from '../../src/config/config-file-schema.js';
import type { DialectName } from '../../src/storage/database-schema.js';
import { preferredDialect } from '../videos/videos-fixture.js';
import { startTestGateway, type TestGateway } from './start-test-gateway.js';

/** One of the suite's proxies, as a channel of the suite's type. */
export interface TaskChannel {
  name: string;
  base_url: string;
  key: string;
  priority: number;
  /** Default: every model `prices` names. */
  models?: string[];
}

export interface TaskGatewayOptions {
  type: 'midjourney' | 'suno';
  /** The suite's clock: task times and poll deadlines. */
  now: () => number;
  /** By model: a number is USD per call; anything else is the price as the config file takes it. */
  prices: Record<string, number | PriceInput>;
  channels: TaskChannel[];
  /**
   * By username, in group `default` with a large wallet: its one token `<username>-key`, with that key, and
   * a large quota unless given one; a `password` lets the user log in to the console.
   */
  users: Record<string, string | { key: string; quota?: number; password?: string }>;
  /** Default 1. */
  retryTimes?: number;
  maxBodyMb?: number;
  /** Default PostgreSQL when the run has it, else SQLite (`preferredDialect`). */
  dialect?: DialectName;
}

const plenty = 1_000_000_000_000;

/**
 * What the Midjourney and Suno suites start in `beforeAll`: the real gateway on the suite's clock, polling only
 * when the suite says so (`TASK_POLL_INTERVAL=0`), its proxies as channels of one type in group `default`, and
 * its users with a token each. Starting and closing the proxies stays with the suite.
 */
export function startTaskGateway(options: TaskGatewayOptions): Promise<TestGateway> {
  const models = Object.keys(options.prices);
  return startTestGateway({
    dialect: options.dialect ?? preferredDialect(),
    now: options.now,
    env: { TASK_POLL_INTERVAL: '0' },
    config: {
      retry_times: options.retryTimes ?? 1,
      ...(options.maxBodyMb === undefined ? {} : { max_body_mb: options.maxBodyMb }),
      prices: Object.fromEntries(Object.entries(options.prices).map(([model, price]) => [model, typeof price === 'number' ? { per_call: price } : price])),
      channels: options.channels.map((channel) => ({ type: options.type, groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {}, models, ...channel })),
      users: Object.entries(options.users).map(([username, token]) => ({
        username,
        ...(typeof token === 'string' || token.password === undefined ? {} : { password: token.password }),
        role: 'user' as const,
        group: 'default',
        quota: plenty,
        enabled: true,
      })),
      tokens: Object.entries(options.users).map(([username, token]) => ({
        name: `${username}-key`,
        user: username,
        key: typeof token === 'string' ? token : token.key,
        quota: typeof token === 'string' ? plenty : (token.quota ?? plenty),
        expires_at: 0,
        enabled: true,
      })),
    },
  });
}
