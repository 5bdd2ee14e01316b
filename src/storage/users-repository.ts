import { sql, type Selectable } from 'kysely';
import type { UserRecord, UserRole } from '../catalog/catalog-records.js';
import type { Database, DialectName, UsersTable } from './database-schema.js';
import { balanceAcrossUnlimitedSwitch } from './balance-across-unlimited-switch.js';
import type { Page, PageRequest } from './paging.js';
import { pageOfQuery } from './page-of-query.js';

export interface UserFields {
  username: string;
  passwordHash?: string | null;
  role: UserRole;
  group: string;
  quota: number;
  unlimitedQuota: boolean;
  enabled: boolean;
}

export function toUserRecord(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    group: row.group_name,
    quota: Number(row.quota),
    unlimitedQuota: row.unlimited_quota === 1,
    usedQuota: Number(row.used_quota),
    requestCount: Number(row.request_count),
    enabled: row.status === 1,
    sessionVersion: Number(row.session_version),
    createdAt: Number(row.created_at),
  };
}

export class UsersRepository {
  constructor(private readonly db: Database, private readonly dialect: DialectName) {}

  async listAll(): Promise<UserRecord[]> {
    return (await this.db.selectFrom('users').selectAll().execute()).map(toUserRecord);
  }

  async list(request: PageRequest): Promise<Page<UserRecord>> {
    const users = this.db.selectFrom('users');
    const page = await pageOfQuery(users, users.selectAll().orderBy('id'), request);
    return { ...page, items: page.items.map(toUserRecord) };
  }

  async get(id: number): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toUserRecord(row);
  }

  async getByUsername(username: string): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    return row === undefined ? undefined : toUserRecord(row);
  }

  async passwordHashOf(username: string): Promise<{ id: number; passwordHash: string | null } | undefined> {
    const row = await this.db.selectFrom('users').select(['id', 'password_hash']).where('username', '=', username).executeTakeFirst();
    return row === undefined ? undefined : { id: row.id, passwordHash: row.password_hash };
  }

  async countByRole(role: UserRole): Promise<number> {
    const { count } = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('count')).where('role', '=', role).executeTakeFirstOrThrow();
    return Number(count);
  }

  async create(fields: UserFields, now: number): Promise<number> {
    const values = {
      username: fields.username,
      password_hash: fields.passwordHash ?? null,
      role: fields.role,
      group_name: fields.group,
      quota: fields.quota,
      unlimited_quota: fields.unlimitedQuota ? 1 : 0,
      status: fields.enabled ? 1 : 2,
      created_at: now,
      updated_at: now,
    };
    if (this.dialect === 'mysql') {
      const result = await this.db.insertInto('users').values(values).executeTakeFirstOrThrow();
      return Number(result.insertId);
    }
    const row = await this.db.insertInto('users').values(values).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  /**
   * Updates the descriptive fields. Balances change only through the ledger's atomic statements.
   * `endSessions` bumps the session version in the same statement: every console session of the user ends.
   */
  async update(id: number, fields: Partial<UserFields>, now: number, options: { endSessions?: boolean } = {}): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({
        // The balance first: MySQL evaluates SET left to right, and it must read the flag as it was.
        ...(fields.unlimitedQuota === undefined
          ? fields.quota === undefined
            ? {}
            : { quota: fields.quota }
          : { quota: balanceAcrossUnlimitedSwitch('quota', 'user_id', id, fields.unlimitedQuota, fields.quota) }),
        ...(fields.username === undefined ? {} : { username: fields.username }),
        ...(fields.passwordHash === undefined ? {} : { password_hash: fields.passwordHash }),
        ...(fields.role === undefined ? {} : { role: fields.role }),
        ...(fields.group === undefined ? {} : { group_name: fields.group }),
        ...(fields.unlimitedQuota === undefined ? {} : { unlimited_quota: fields.unlimitedQuota ? 1 : 0 }),
        ...(fields.enabled === undefined ? {} : { status: fields.enabled ? 1 : 2 }),
        ...(options.endSessions === true ? { session_version: sql<number>`session_version + 1` } : {}),
        updated_at: now,
      })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Ends every console session of the user (logout): one statement, no read. */
  async endSessions(id: number, now: number): Promise<boolean> {
    return this.update(id, {}, now, { endSessions: true });
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Adds `delta` to the user's balance (negative takes back) in ONE statement, never read-modify-write, so it
   * cannot lose a concurrent charge. Answers false when the user is missing or the balance would go below zero
   * or past Number.MAX_SAFE_INTEGER (where a balance stops being exact once read into JavaScript).
   */
  async adjustQuota(id: number, delta: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '+', delta), updated_at: now }))
      .where('id', '=', id)
      .where((eb) => eb(eb('quota', '+', delta), '>=', 0))
      .where((eb) => eb(eb('quota', '+', delta), '<=', Number.MAX_SAFE_INTEGER))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
