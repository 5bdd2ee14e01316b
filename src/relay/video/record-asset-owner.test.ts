import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { AssetOwnerRow } from '../../storage/asset-owners-repository.js';
import { recordAssetOwner } from './record-asset-owner.js';

/** An asset id an upstream may choose: both quotes, backslashes before a quote and at the end, a newline, a CR, a tab. */
const hostileId = `asset-'x' "y" \\' \\\\ end\n'); DROP TABLE asset_owners; --\r\tlast\\`;
const owner: AssetOwnerRow = { asset_id: hostileId, user_id: 3, channel_id: 7, key_fingerprint: 'fp-0123abcd', created_at: 1_000 };

describe('recordAssetOwner', () => {
  it('gives up with one line naming the asset as JSON and a restore statement whose values are parameters, which restores the row', async () => {
    const lines: string[] = [];
    const refused = { record: () => Promise.reject(new Error('database down')) };
    await expect(recordAssetOwner(refused, owner, (line) => lines.push(line), [0])).rejects.toMatchObject({ code: 'internal_error' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/[\r\n]/);
    expect(lines[0]).toContain(`asset ${JSON.stringify(hostileId)} of user 3`);
    const match = /restore it with: (INSERT INTO asset_owners [^[]*) with parameters (\[.*\])$/.exec(lines[0]!);
    expect(match, lines[0]).not.toBeNull();
    const parameters = JSON.parse(match![2]!) as unknown[];
    expect(parameters).toEqual([hostileId, 3, 7, 'fp-0123abcd', 1_000]);

    const database = new Database(':memory:');
    database.exec('CREATE TABLE asset_owners (asset_id varchar(191) PRIMARY KEY, user_id integer NOT NULL, channel_id integer NOT NULL, key_fingerprint varchar(32) NOT NULL, created_at bigint NOT NULL)');
    expect(database.prepare(match![1]!).run(...parameters).changes).toBe(1);
    expect(database.prepare('SELECT * FROM asset_owners').all()).toEqual([owner]);
    database.close();
  });

  it('tries again after each wait and writes the row without a report when a later try goes through', async () => {
    const lines: string[] = [];
    let tries = 0;
    const written: AssetOwnerRow[] = [];
    const recorder = {
      record: async (row: AssetOwnerRow) => {
        tries += 1;
        if (tries < 3) throw new Error('blip');
        written.push(row);
      },
    };
    await recordAssetOwner(recorder, owner, (line) => lines.push(line), [0, 0, 0]);
    expect(tries).toBe(3);
    expect(written).toEqual([owner]);
    expect(lines).toEqual([]);
  });
});
