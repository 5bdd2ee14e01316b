import type { TokenRecord } from '../../catalog/catalog-records.js';

/** The wallet of the token's user, as the balance routes read it with the token (users.quota is what remains). */
export interface UserWallet {
  quota: number;
  unlimitedQuota: boolean;
}

/** What a key has spent and can still spend, in quota units; `unlimited` only when neither wallet limits it. */
export interface KeyBalance {
  unlimited: boolean;
  used: number;
  available: number;
}

/**
 * Pure: the balance the routes of spec §2.9–2.11 show for a key. A request is admitted only while both the
 * token and its user hold enough (402 otherwise), so what the key can spend is the smaller of the two
 * remaining balances: an unlimited token's is its user's, a limited token of an unlimited user its own.
 * Its in-flight reservations (already taken from each limited wallet, not yet settled) count as used, as
 * new-api's pre-charge does, so `used + available` stays the same while its requests run. When neither
 * wallet is limited nothing is taken from either: the token's own figures, its reservations not counted.
 */
export function computeKeyBalance(token: Pick<TokenRecord, 'remainQuota' | 'usedQuota' | 'unlimitedQuota'>, user: UserWallet, reservedInFlight: number): KeyBalance {
  if (token.unlimitedQuota && user.unlimitedQuota) return { unlimited: true, used: token.usedQuota, available: token.remainQuota };
  const used = token.usedQuota + reservedInFlight;
  if (token.unlimitedQuota) return { unlimited: false, used, available: user.quota };
  if (user.unlimitedQuota) return { unlimited: false, used, available: token.remainQuota };
  return { unlimited: false, used, available: Math.min(token.remainQuota, user.quota) };
}
