import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database, DialectName } from './database-schema.js';
import { initialMigration } from './migrations/001-initial.js';
import { ledgerRoutinesMigration } from './migrations/002-ledger-routines.js';
import { sqliteReservationPagesMigration } from './migrations/003-sqlite-reservation-pages.js';
import { ledgerBatchRoutineMigration } from './migrations/004-ledger-batch-routine.js';
import { mysqlLedgerBatchMigration } from './migrations/005-mysql-ledger-batch.js';
import { ledgerBatchRowLocksMigration } from './migrations/006-ledger-batch-row-locks.js';
import { userSessionVersionMigration } from './migrations/007-user-session-version.js';
import { playgroundTokenPurposeMigration } from './migrations/008-playground-token-purpose.js';
import { cacheWrite1hMigration } from './migrations/009-cache-write-1h.js';
import { tasksMigration } from './migrations/010-tasks.js';
import { audioPricesMigration } from './migrations/011-audio-prices.js';
import { webSearchPricesMigration } from './migrations/012-web-search-prices.js';
import { imagePricesMigration } from './migrations/013-image-prices.js';
import { assetOwnersMigration } from './migrations/014-asset-owners.js';
import { tasksRequestIdMigration } from './migrations/015-tasks-request-id.js';
import { priorityTierPricesMigration } from './migrations/016-priority-tier-prices.js';
import { walletsDebitedMigration } from './migrations/017-wallets-debited.js';
import { mysqlSettleFlagsMigration } from './migrations/018-mysql-settle-flags.js';
import { conversationOwnersMigration } from './migrations/019-conversation-owners.js';
import { conversationOwnersLongIdsAndHistoryMigration } from './migrations/020-conversation-owners-long-ids-and-history.js';
import { reservationLogFactsMigration } from './migrations/021-reservation-log-facts.js';
import { mysqlExactIdKeysMigration } from './migrations/022-mysql-exact-id-keys.js';
import { conversationClaimHoldersMigration } from './migrations/023-conversation-claim-holders.js';
import { tasksUserIdMigration } from './migrations/024-tasks-user-id.js';
import { logsUserIdCreatedAtMigration } from './migrations/025-logs-user-id-created-at.js';
import { logsUserCoveringMigration } from './migrations/026-logs-user-covering.js';

/** Migrations live in code (not files on disk) so the built package carries them. */
function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return {
    '001-initial': initialMigration(dialect),
    '002-ledger-routines': ledgerRoutinesMigration(dialect),
    '003-sqlite-reservation-pages': sqliteReservationPagesMigration(dialect),
    '004-ledger-batch-routine': ledgerBatchRoutineMigration(dialect),
    '005-mysql-ledger-batch': mysqlLedgerBatchMigration(dialect),
    '006-ledger-batch-row-locks': ledgerBatchRowLocksMigration(dialect),
    '007-user-session-version': userSessionVersionMigration(),
    '008-playground-token-purpose': playgroundTokenPurposeMigration(),
    '009-cache-write-1h': cacheWrite1hMigration(),
    '010-tasks': tasksMigration(dialect),
    '011-audio-prices': audioPricesMigration(),
    '012-web-search-prices': webSearchPricesMigration(),
    '013-image-prices': imagePricesMigration(),
    '014-asset-owners': assetOwnersMigration(),
    '015-tasks-request-id': tasksRequestIdMigration(),
    '016-priority-tier-prices': priorityTierPricesMigration(),
    '017-wallets-debited': walletsDebitedMigration(dialect),
    '018-mysql-settle-flags': mysqlSettleFlagsMigration(dialect),
    '019-conversation-owners': conversationOwnersMigration(),
    '020-conversation-owners-long-ids-and-history': conversationOwnersLongIdsAndHistoryMigration(),
    '021-reservation-log-facts': reservationLogFactsMigration(dialect),
    '022-mysql-exact-id-keys': mysqlExactIdKeysMigration(dialect),
    '023-conversation-claim-holders': conversationClaimHoldersMigration(),
    '024-tasks-user-id': tasksUserIdMigration(),
    '025-logs-user-id-created-at': logsUserIdCreatedAtMigration(dialect),
    '026-logs-user-covering': logsUserCoveringMigration(dialect),
  };
}

/**
 * Applies the migrations not yet applied, in order: all of them, or (`upTo`, a migration's name) those up
 * to and including that one — a database as an earlier version left it, for the tests of a later migration.
 */
export async function runMigrations(db: Database, dialect: DialectName, upTo?: string): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(dialect) };
  const migrator = new Migrator({ db, provider, migrationTableName: 'relay_migrations', migrationLockTableName: 'relay_migrations_lock' });
  const migrate = () => (upTo === undefined ? migrator.migrateToLatest() : migrator.migrateTo(upTo));
  const { error, results } = dialect === 'sqlite' ? await migrateSqliteExclusively(db, migrate) : await migrate();
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/**
 * Kysely's migration lock is a no-op on SQLite and it runs SQLite's migrations outside any transaction,
 * so two processes starting on a new file both created its tables (`table "users" already exists`), and a
 * crash inside 003 (copy, drop, rename) left no reservations table. Here the whole run holds SQLite's
 * write lock (BEGIN IMMEDIATE on the one connection Kysely uses for SQLite; a second process waits for it
 * through busy_timeout, then finds everything applied) and commits all at once: SQLite's DDL is
 * transactional.
 */
async function migrateSqliteExclusively(db: Database, migrate: () => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  await sql`begin immediate`.execute(db);
  try {
    const outcome = await migrate();
    await sql.raw(outcome.error === undefined ? 'commit' : 'rollback').execute(db);
    return outcome;
  } catch (error) {
    await sql`rollback`.execute(db);
    throw error;
  }
}
