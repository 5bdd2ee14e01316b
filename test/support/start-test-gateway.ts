import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { readEnvironment } from '../../src/config/read-environment.js';
import { startGateway, type Gateway } from '../../src/main.js';
import type { DialectName } from '../../src/storage/database-schema.js';
import { createTestDatabase } from './test-databases.js';

export const testAdminKey = 'sk-admin0000000000000000000000000000000000000000000000';

export interface TestGateway {
  gateway: Gateway;
  url: string;
  adminKey: string;
  databaseUrl: string;
  announced: string[];
  /**
   * Waits until every request in flight is settled and its log row written. Clients have their answers
   * before that (settlement and logging follow the answer), so read balances and logs after this.
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  dialect?: DialectName;
  config?: ConfigFile;
  /** Extra environment variables (REDIS_URL, STREAMING_TIMEOUT, …). */
  env?: Record<string, string>;
  now?: () => number;
  /** Reuse an existing database instead of creating a fresh one. */
  databaseUrl?: string;
}

/** Starts the real gateway on a free loopback port with a fresh database of the given dialect. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const database = options.databaseUrl === undefined ? await createTestDatabase(options.dialect ?? 'sqlite') : { url: options.databaseUrl, drop: async () => undefined };
  const environment = readEnvironment({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    CRYPTO_SECRET: 'test-crypto-secret',
    SESSION_SECRET: 'test-session-secret',
    ...options.env,
  });
  const announced: string[] = [];
  const gateway = await startGateway({
    environment,
    config: { admin_key: testAdminKey, ...options.config },
    announce: (line) => announced.push(line),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return {
    gateway,
    url: gateway.url,
    adminKey: testAdminKey,
    databaseUrl: database.url,
    announced,
    async settled() {
      await gateway.services.relay.inFlight.drained();
      await gateway.logWriter.flush();
    },
    async close() {
      await gateway.close();
      await database.drop();
    },
  };
}
