import { setTimeout as wait } from 'node:timers/promises';
import { GatewayError } from '../../errors/gateway-error.js';
import type { AssetOwnerRow, AssetOwnersRepository } from '../../storage/asset-owners-repository.js';
import { operatorStatement } from '../../storage/operator-statement.js';

/** The waits before each retry of the owner row's write: four tries within about a second. */
export const ownerWriteRetryDelaysMs: readonly number[] = [50, 200, 800];

/**
 * Records a created asset's owner (create-asset.ts). The asset exists upstream and was paid for, and
 * without its row nobody can use it through the gateway, so a failed write (a database restarting, a
 * deadlock, a connection cut) is tried again after each of `delaysMs`; the insert keeps an id recorded
 * already, so a write that went through unheard is harmless to repeat. Given up, `report` gets one line
 * naming the asset (as JSON: the upstream chose it), its maker, channel and key fingerprint, with the
 * statement that restores the row (parameterised, operator-statement.ts), and the request fails (500): the
 * client is not answered an id it cannot use.
 */
export async function recordAssetOwner(
  owners: Pick<AssetOwnersRepository, 'record'>,
  owner: AssetOwnerRow,
  report: (line: string) => void,
  delaysMs: readonly number[] = ownerWriteRetryDelaysMs,
): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await owners.record(owner);
      return;
    } catch (error) {
      const delay = delaysMs[attempt];
      if (delay !== undefined) {
        await wait(delay);
        continue;
      }
      report(
        `asset ${JSON.stringify(owner.asset_id)} of user ${owner.user_id} was created upstream (channel ${owner.channel_id}) but its owner row could not be written (${attempt + 1} tries, last: ${String(error)}); ` +
          `restore it with: ${operatorStatement('INSERT INTO asset_owners (asset_id, user_id, channel_id, key_fingerprint, created_at) VALUES (?, ?, ?, ?, ?)', [owner.asset_id, owner.user_id, owner.channel_id, owner.key_fingerprint, owner.created_at])}`,
      );
      throw new GatewayError('internal_error', 'The asset service created the asset, but the gateway could not record it for you; its operator has been told its id.', { cause: error });
    }
  }
}
