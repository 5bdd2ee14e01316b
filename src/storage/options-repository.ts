import type { Database } from './database-schema.js';

/** Key/value settings that live in the database (catalog version, admin key hash, site options). */
export class OptionsRepository {
  constructor(private readonly db: Database) {}

  async get(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  async set(key: string, value: string): Promise<void> {
    const existing = await this.db.selectFrom('options').select('key').where('key', '=', key).executeTakeFirst();
    if (existing === undefined) {
      try {
        await this.db.insertInto('options').values({ key, value }).execute();
        return;
      } catch {
        // Another process inserted the same key first; fall through to the update.
      }
    }
    await this.db.updateTable('options').set({ value }).where('key', '=', key).execute();
  }

  /** Sets the key only when absent; answers whether this call wrote it (first start, across processes). */
  async setIfAbsent(key: string, value: string): Promise<boolean> {
    try {
      await this.db.insertInto('options').values({ key, value }).execute();
      return true;
    } catch {
      return false;
    }
  }

  /** Sets the key to `value` only while it is still `expected`; answers whether this call changed it. */
  async replace(key: string, expected: string, value: string): Promise<boolean> {
    const result = await this.db.updateTable('options').set({ value }).where('key', '=', key).where('value', '=', expected).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The options whose key begins with `prefix` (a literal prefix: no LIKE wildcards in it). */
  async withPrefix(prefix: string): Promise<Record<string, string>> {
    const rows = await this.db.selectFrom('options').selectAll().where('key', 'like', `${prefix}%`).execute();
    return Object.fromEntries(rows.filter((row) => row.key.startsWith(prefix)).map((row) => [row.key, row.value]));
  }

  async all(): Promise<Record<string, string>> {
    const rows = await this.db.selectFrom('options').selectAll().execute();
    return Object.fromEntries(rows.map((row) => [row.key, row.value]));
  }
}
