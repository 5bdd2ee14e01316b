import type { Selectable } from 'kysely';
import type { RateLimit, TokenPurpose, TokenRecord } from '../catalog/catalog-records.js';
import type { Database, DialectName, TokensTable } from './database-schema.js';
import { balanceAcrossUnlimitedSwitch } from './balance-across-unlimited-switch.js';
import { parseJsonOr, type Page, type PageRequest } from './paging.js';
import { pageOfQuery } from './page-of-query.js';

export interface TokenFields {
  userId: number;
  name: string;
  group: string | null;
  remainQuota: number;
  unlimitedQuota: boolean;
  modelLimits: string[] | null;
  expiresAt: number;
  enabled: boolean;
  rateLimit: RateLimit;
  /** Set at creation only; default `api`. */
  purpose?: TokenPurpose;
}

export interface StoredToken extends TokenRecord {
  keyHash: string;
}

export function toTokenRecord(row: Selectable<TokensTable>): StoredToken {
  const rateLimit: RateLimit = {};
  if (row.rate_limit_rpm !== null) rateLimit.rpm = row.rate_limit_rpm;
  if (row.rate_limit_tpm !== null) rateLimit.tpm = row.rate_limit_tpm;
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    keyHash: row.key_hash,
    keyPrefix: row.key_prefix,
    group: row.group_name,
    remainQuota: Number(row.remain_quota),
    usedQuota: Number(row.used_quota),
    unlimitedQuota: row.unlimited_quota === 1,
    modelLimits: row.model_limits === null ? null : parseJsonOr<string[]>(row.model_limits, []),
    expiresAt: Number(row.expires_at),
    enabled: row.status === 1,
    rateLimit,
    requestCount: Number(row.request_count),
    createdAt: Number(row.created_at),
    purpose: row.purpose === 'playground' ? 'playground' : 'api',
  };
}

function columnsOf(fields: Partial<TokenFields>) {
  return {
    ...(fields.userId === undefined ? {} : { user_id: fields.userId }),
    ...(fields.name === undefined ? {} : { name: fields.name }),
    ...(fields.group === undefined ? {} : { group_name: fields.group }),
    ...(fields.remainQuota === undefined ? {} : { remain_quota: fields.remainQuota }),
    ...(fields.unlimitedQuota === undefined ? {} : { unlimited_quota: fields.unlimitedQuota ? 1 : 0 }),
    ...(fields.modelLimits === undefined ? {} : { model_limits: fields.modelLimits === null ? null : JSON.stringify(fields.modelLimits) }),
    ...(fields.expiresAt === undefined ? {} : { expires_at: fields.expiresAt }),
    ...(fields.enabled === undefined ? {} : { status: fields.enabled ? 1 : 2 }),
    ...(fields.rateLimit === undefined ? {} : { rate_limit_rpm: fields.rateLimit.rpm ?? null, rate_limit_tpm: fields.rateLimit.tpm ?? null }),
  };
}

export class TokensRepository {
  constructor(private readonly db: Database, private readonly dialect: DialectName) {}

  async listAll(): Promise<StoredToken[]> {
    return (await this.db.selectFrom('tokens').selectAll().execute()).map(toTokenRecord);
  }

  async list(request: PageRequest, userId?: number): Promise<Page<StoredToken>> {
    let query = this.db.selectFrom('tokens');
    if (userId !== undefined) query = query.where('user_id', '=', userId);
    const page = await pageOfQuery(query, query.selectAll().orderBy('id'), request);
    return { ...page, items: page.items.map(toTokenRecord) };
  }

  async get(id: number): Promise<StoredToken | undefined> {
    const row = await this.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toTokenRecord(row);
  }

  /**
   * The token, its user's wallet and what the token's requests in flight hold reserved (open quota
   * reservations, in quota units), read in one statement: one snapshot on every database, so a settle
   * committing between two reads can neither count a charge twice (still reserved and already used) nor miss
   * it, nor show the user's balance from before a charge beside the token's from after it. Undefined when the
   * token (or its user) is gone.
   */
  async getWithWallet(id: number): Promise<{ token: StoredToken; user: { quota: number; unlimitedQuota: boolean }; reservedInFlight: number } | undefined> {
    const row = await this.db
      .selectFrom('tokens')
      .innerJoin('users', 'users.id', 'tokens.user_id')
      .selectAll('tokens')
      .select(['users.quota as user_quota', 'users.unlimited_quota as user_unlimited_quota'])
      .select((eb) =>
        eb
          .selectFrom('quota_reservations')
          .select((reservations) => reservations.fn.sum<number | string | null>('amount').as('reserved'))
          .where('state', '=', 'reserved')
          .where('token_id', '=', id)
          .as('reserved_in_flight'),
      )
      .where('tokens.id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const { reserved_in_flight: reserved, user_quota: userQuota, user_unlimited_quota: userUnlimited, ...tokenRow } = row;
    return { token: toTokenRecord(tokenRow), user: { quota: Number(userQuota), unlimitedQuota: userUnlimited === 1 }, reservedInFlight: Number(reserved ?? 0) };
  }

  async getByKeyHash(keyHash: string): Promise<StoredToken | undefined> {
    const row = await this.db.selectFrom('tokens').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
    return row === undefined ? undefined : toTokenRecord(row);
  }

  async getByName(userId: number, name: string): Promise<StoredToken | undefined> {
    const row = await this.db.selectFrom('tokens').selectAll().where('user_id', '=', userId).where('name', '=', name).executeTakeFirst();
    return row === undefined ? undefined : toTokenRecord(row);
  }

  async create(fields: TokenFields, key: { hash: string; prefix: string }, now: number): Promise<number> {
    const values = {
      user_id: fields.userId,
      name: fields.name,
      key_hash: key.hash,
      key_prefix: key.prefix,
      group_name: fields.group,
      remain_quota: fields.remainQuota,
      unlimited_quota: fields.unlimitedQuota ? 1 : 0,
      model_limits: fields.modelLimits === null ? null : JSON.stringify(fields.modelLimits),
      expires_at: fields.expiresAt,
      status: fields.enabled ? 1 : 2,
      rate_limit_rpm: fields.rateLimit.rpm ?? null,
      rate_limit_tpm: fields.rateLimit.tpm ?? null,
      purpose: fields.purpose ?? 'api',
      created_at: now,
      updated_at: now,
    };
    if (this.dialect === 'mysql') {
      const result = await this.db.insertInto('tokens').values(values).executeTakeFirstOrThrow();
      return Number(result.insertId);
    }
    const row = await this.db.insertInto('tokens').values(values).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  async update(id: number, fields: Partial<TokenFields>, now: number, key?: { hash: string; prefix: string }): Promise<boolean> {
    // The balance first: MySQL evaluates SET left to right, and it must read the flag as it was.
    const balance = fields.unlimitedQuota === undefined ? {} : { remain_quota: balanceAcrossUnlimitedSwitch('remain_quota', 'token_id', id, fields.unlimitedQuota, fields.remainQuota) };
    const result = await this.db
      .updateTable('tokens')
      .set({ ...balance, ...columnsOf(fields), ...balance, ...(key === undefined ? {} : { key_hash: key.hash, key_prefix: key.prefix }), updated_at: now })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('tokens').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Adds `delta` to the token's balance (negative takes back) in ONE statement, never read-modify-write, so it
   * cannot lose a concurrent charge. Answers false when the token is missing or the balance would go below zero
   * or past Number.MAX_SAFE_INTEGER (where a balance stops being exact once read into JavaScript).
   */
  async adjustQuota(id: number, delta: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('tokens')
      .set((eb) => ({ remain_quota: eb('remain_quota', '+', delta), updated_at: now }))
      .where('id', '=', id)
      .where((eb) => eb(eb('remain_quota', '+', delta), '>=', 0))
      .where((eb) => eb(eb('remain_quota', '+', delta), '<=', Number.MAX_SAFE_INTEGER))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
