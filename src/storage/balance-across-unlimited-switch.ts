import { sql, type RawBuilder } from 'kysely';

/**
 * The balance a wallet update writes when it sets `unlimited_quota`. Reservations made while the wallet
 * was limited took their amount from the balance, and settle gives the unused part back only to a wallet
 * that is limited at settlement; those made while it was unlimited took nothing. So a switch hands the open
 * reservations' amounts back (limited → unlimited: they will not be given back at settlement) or takes them
 * (unlimited → limited: settlement will give back what they never took). Without it a switch while requests
 * are in flight would create quota or lose it. `base`: the balance the update sets, else the current one.
 * Unlimited → limited may leave the balance below zero until those requests settle: what they cost is then
 * owed, and nothing more is admitted meanwhile.
 */
export function balanceAcrossUnlimitedSwitch(balance: 'remain_quota' | 'quota', wallet: 'token_id' | 'user_id', id: number, unlimited: boolean, base: number | undefined): RawBuilder<number> {
  const current = base === undefined ? sql.ref(balance) : sql.lit(base);
  const open = sql`(select coalesce(sum(amount), 0) from quota_reservations where ${sql.ref(wallet)} = ${id} and state = 'reserved')`;
  return sql<number>`case when unlimited_quota = ${sql.lit(unlimited ? 1 : 0)} then ${current} else ${current} ${sql.raw(unlimited ? '+' : '-')} ${open} end`;
}
