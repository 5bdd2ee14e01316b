import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialectName } from '../../src/storage/database-schema.js';

/**
 * The databases a test runs on: SQLite always; PostgreSQL and MySQL when .ci/run (or you) exported
 * RELAY_TEST_POSTGRES_URL / RELAY_TEST_MYSQL_URL. Each test file gets a database of its own.
 */
export const serverUrls = {
  postgres: process.env.RELAY_TEST_POSTGRES_URL,
  mysql: process.env.RELAY_TEST_MYSQL_URL,
  redis: process.env.RELAY_TEST_REDIS_URL,
};

export const testDialects: DialectName[] = [
  'sqlite',
  ...(serverUrls.postgres === undefined ? [] : (['postgres'] as const)),
  ...(serverUrls.mysql === undefined ? [] : (['mysql'] as const)),
];

/** Every dialect with whether it can run here, for `describe.skipIf(!available)`. */
export const allDialects: { dialect: DialectName; available: boolean }[] = [
  { dialect: 'sqlite', available: true },
  { dialect: 'postgres', available: serverUrls.postgres !== undefined },
  { dialect: 'mysql', available: serverUrls.mysql !== undefined },
];

/** The database servers, with whether each can run here: where a connection can be cut (SQLite has none). */
export const serverDialects: { dialect: 'postgres' | 'mysql'; available: boolean }[] = [
  { dialect: 'postgres', available: serverUrls.postgres !== undefined },
  { dialect: 'mysql', available: serverUrls.mysql !== undefined },
];

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const name = `relay_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  switch (dialect) {
    case 'sqlite': {
      const directory = mkdtempSync(join(tmpdir(), 'relay-test-'));
      return { url: `sqlite:${join(directory, 'relay.db')}`, drop: async () => rmSync(directory, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) };
    }
    case 'postgres': {
      const base = requireUrl('postgres');
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(base);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        drop: async () => {
          const client = new pg.Client({ connectionString: base });
          await client.connect();
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await client.end();
        },
      };
    }
    case 'mysql': {
      const base = new URL(requireUrl('mysql'));
      const { createConnection } = await import('mysql2/promise');
      const options = { host: base.hostname, port: Number(base.port || 3306), user: decodeURIComponent(base.username), password: decodeURIComponent(base.password) };
      const admin = await createConnection(options);
      await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
      await admin.end();
      base.pathname = `/${name}`;
      return {
        url: base.toString(),
        drop: async () => {
          const connection = await createConnection(options);
          await connection.query(`DROP DATABASE IF EXISTS ${name}`);
          await connection.end();
        },
      };
    }
  }
}

function requireUrl(dialect: 'postgres' | 'mysql'): string {
  const url = serverUrls[dialect];
  if (url === undefined) throw new Error(`RELAY_TEST_${dialect.toUpperCase()}_URL is not set`);
  return url;
}
