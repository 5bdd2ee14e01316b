import type { TokenRecord, UserRecord } from '../catalog/catalog-records.js';

/**
 * Pure: whose balance is used up — the token's, else its user's — or undefined when both have something
 * left (an unlimited side never runs out). For routes that cost nothing themselves but must not serve a
 * caller who has nothing left: a free reservation always passes the ledger, so they ask this instead.
 */
export function findExhaustedBalance(token: Pick<TokenRecord, 'remainQuota' | 'unlimitedQuota'>, user: Pick<UserRecord, 'quota' | 'unlimitedQuota'>): 'token' | 'user' | undefined {
  if (!token.unlimitedQuota && token.remainQuota <= 0) return 'token';
  if (!user.unlimitedQuota && user.quota <= 0) return 'user';
  return undefined;
}
