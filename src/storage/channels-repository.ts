import type { Selectable } from 'kysely';
import { channelStatusCode, channelStatusFromCode, type ChannelRecord } from '../catalog/catalog-records.js';
import type { SecretBox } from '../security/secret-box.js';
import type { ChannelsTable, Database, DialectName } from './database-schema.js';
import { parseJsonOr, type Page, type PageRequest } from './paging.js';
import { pageOfQuery } from './page-of-query.js';

/** What an operator sets on a channel: its record without the id and the counters the gateway keeps. */
export type ChannelFields = Omit<ChannelRecord, 'id' | 'statusReason' | 'usedQuota' | 'requestCount'> & { statusReason?: string | null };

export class ChannelsRepository {
  constructor(private readonly db: Database, private readonly dialect: DialectName, private readonly secrets: SecretBox) {}

  private toRecord(row: Selectable<ChannelsTable>): ChannelRecord {
    return {
      id: row.id,
      name: row.name,
      type: row.type,
      baseUrl: row.base_url,
      keys: parseJsonOr<string[]>(this.secrets.open(row.keys_encrypted), []),
      models: parseJsonOr<string[]>(row.models, []),
      groups: parseJsonOr<string[]>(row.groups, []),
      priority: row.priority,
      weight: row.weight,
      modelMapping: parseJsonOr<Record<string, string>>(row.model_mapping, {}),
      settings: parseJsonOr<Record<string, unknown>>(row.settings, {}),
      status: channelStatusFromCode(row.status),
      autoDisable: row.auto_disable === 1,
      statusReason: row.status_reason,
      usedQuota: Number(row.used_quota),
      requestCount: Number(row.request_count),
    };
  }

  private columnsOf(fields: Partial<ChannelFields>) {
    return {
      ...(fields.name === undefined ? {} : { name: fields.name }),
      ...(fields.type === undefined ? {} : { type: fields.type }),
      ...(fields.baseUrl === undefined ? {} : { base_url: fields.baseUrl }),
      ...(fields.keys === undefined ? {} : { keys_encrypted: this.secrets.seal(JSON.stringify(fields.keys)) }),
      ...(fields.models === undefined ? {} : { models: JSON.stringify(fields.models) }),
      ...(fields.groups === undefined ? {} : { groups: JSON.stringify(fields.groups) }),
      ...(fields.priority === undefined ? {} : { priority: fields.priority }),
      ...(fields.weight === undefined ? {} : { weight: fields.weight }),
      ...(fields.modelMapping === undefined ? {} : { model_mapping: JSON.stringify(fields.modelMapping) }),
      ...(fields.settings === undefined ? {} : { settings: JSON.stringify(fields.settings) }),
      ...(fields.status === undefined ? {} : { status: channelStatusCode(fields.status) }),
      ...(fields.autoDisable === undefined ? {} : { auto_disable: fields.autoDisable ? 1 : 0 }),
      ...(fields.statusReason === undefined ? {} : { status_reason: fields.statusReason }),
    };
  }

  async listAll(): Promise<ChannelRecord[]> {
    return (await this.db.selectFrom('channels').selectAll().orderBy('id').execute()).map((row) => this.toRecord(row));
  }

  async list(request: PageRequest): Promise<Page<ChannelRecord>> {
    const channels = this.db.selectFrom('channels');
    const page = await pageOfQuery(channels, channels.selectAll().orderBy('id'), request);
    return { ...page, items: page.items.map((row) => this.toRecord(row)) };
  }

  async get(id: number): Promise<ChannelRecord | undefined> {
    const row = await this.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : this.toRecord(row);
  }

  async getByName(name: string): Promise<ChannelRecord | undefined> {
    const row = await this.db.selectFrom('channels').selectAll().where('name', '=', name).executeTakeFirst();
    return row === undefined ? undefined : this.toRecord(row);
  }

  async create(fields: ChannelFields, now: number): Promise<number> {
    const values = {
      name: fields.name,
      type: fields.type,
      base_url: fields.baseUrl,
      keys_encrypted: this.secrets.seal(JSON.stringify(fields.keys)),
      models: JSON.stringify(fields.models),
      groups: JSON.stringify(fields.groups),
      priority: fields.priority,
      weight: fields.weight,
      model_mapping: JSON.stringify(fields.modelMapping),
      settings: JSON.stringify(fields.settings),
      status: channelStatusCode(fields.status),
      auto_disable: fields.autoDisable ? 1 : 0,
      status_reason: fields.statusReason ?? null,
      created_at: now,
      updated_at: now,
    };
    if (this.dialect === 'mysql') {
      const result = await this.db.insertInto('channels').values(values).executeTakeFirstOrThrow();
      return Number(result.insertId);
    }
    const row = await this.db.insertInto('channels').values(values).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  async update(id: number, fields: Partial<ChannelFields>, now: number): Promise<boolean> {
    const result = await this.db.updateTable('channels').set({ ...this.columnsOf(fields), updated_at: now }).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('channels').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
