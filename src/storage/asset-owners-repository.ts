import type { Selectable } from 'kysely';
import type { AssetOwnersTable, Database, DialectName } from './database-schema.js';

export type AssetOwnerRow = Selectable<AssetOwnersTable>;

/** Who made each Seedance asset the gateway created, and where (migration 014). */
export class AssetOwnersRepository {
  constructor(
    private readonly db: Database,
    private readonly dialect: DialectName,
  ) {}

  /** Records a created asset; an id already recorded keeps its first maker (an upstream never reuses one). */
  async record(owner: AssetOwnerRow): Promise<void> {
    const insert = this.db.insertInto('asset_owners').values(owner);
    if (this.dialect === 'mysql') await insert.ignore().execute();
    else await insert.onConflict((conflict) => conflict.column('asset_id').doNothing()).execute();
  }

  async find(assetId: string): Promise<AssetOwnerRow | undefined> {
    return this.db.selectFrom('asset_owners').selectAll().where('asset_id', '=', assetId).executeTakeFirst();
  }
}
