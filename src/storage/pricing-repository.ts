import type { GroupRecord, PriceRecord } from '../catalog/catalog-records.js';
import { priceRates } from '../catalog/price-rates.js';
import type { Database } from './database-schema.js';

/** Prices (model → price) and groups (group → ratio). Upserts are select-then-write: admin-only paths. */
export class PricingRepository {
  constructor(private readonly db: Database) {}

  async listPrices(): Promise<PriceRecord[]> {
    const rows = await this.db.selectFrom('prices').selectAll().orderBy('model').execute();
    return rows.map((row) => {
      const price: PriceRecord = { model: row.model };
      if (row.input !== null) price.input = Number(row.input);
      if (row.output !== null) price.output = Number(row.output);
      if (row.cache_read !== null) price.cacheRead = Number(row.cache_read);
      if (row.cache_write !== null) price.cacheWrite = Number(row.cache_write);
      if (row.cache_write_1h !== null) price.cacheWrite1h = Number(row.cache_write_1h);
      if (row.audio_input !== null) price.audioInput = Number(row.audio_input);
      if (row.audio_output !== null) price.audioOutput = Number(row.audio_output);
      if (row.image_input !== null) price.imageInput = Number(row.image_input);
      if (row.image_output !== null) price.imageOutput = Number(row.image_output);
      if (row.web_search !== null) price.webSearch = Number(row.web_search);
      if (row.priority !== null) price.priority = Number(row.priority);
      if (row.per_call !== null) price.perCall = Number(row.per_call);
      if (row.per_second !== null) price.perSecond = Number(row.per_second);
      return price;
    });
  }

  async upsertPrice(price: PriceRecord, now: number): Promise<void> {
    const columns = { ...priceRates(price), updated_at: now };
    const updated = await this.db.updateTable('prices').set(columns).where('model', '=', price.model).executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      await this.db.insertInto('prices').values({ model: price.model, ...columns }).execute();
    }
  }

  async deletePrice(model: string): Promise<boolean> {
    const result = await this.db.deleteFrom('prices').where('model', '=', model).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listGroups(): Promise<GroupRecord[]> {
    const rows = await this.db.selectFrom('groups').selectAll().orderBy('name').execute();
    return rows.map((row) => ({ name: row.name, ratio: Number(row.ratio) }));
  }

  async upsertGroup(group: GroupRecord, now: number): Promise<void> {
    const updated = await this.db.updateTable('groups').set({ ratio: group.ratio, updated_at: now }).where('name', '=', group.name).executeTakeFirst();
    // MySQL reports 0 changed rows when the value is unchanged, so check existence before inserting.
    if (Number(updated.numUpdatedRows) === 0) {
      const existing = await this.db.selectFrom('groups').select('name').where('name', '=', group.name).executeTakeFirst();
      if (existing === undefined) await this.db.insertInto('groups').values({ name: group.name, ratio: group.ratio, updated_at: now }).execute();
    }
  }

  async deleteGroup(name: string): Promise<boolean> {
    const result = await this.db.deleteFrom('groups').where('name', '=', name).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
