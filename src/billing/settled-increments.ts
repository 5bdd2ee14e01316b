/** What settled requests add to one wallet: its balance back, its used quota, its request count. */
export interface WalletIncrement {
  /** Quota handed back to the balance (never negative: an overage is written at once, guarded). */
  credit: number;
  used: number;
  requests: number;
}

const none: WalletIncrement = Object.freeze({ credit: 0, used: 0, requests: 0 });

/**
 * The settles of one transaction whose counters are not written yet, summed per token, user and channel.
 * A settle within its reservation only adds to counters (an unguarded `+`), and additions commute: their
 * sum can be written once at the end of the transaction, or folded into the next guarded debit of the
 * same wallet, with the same result as one UPDATE per settle. Pure bookkeeping: the ledger does the SQL.
 */
export class SettledIncrements {
  private readonly wallets = { token: new Map<number, WalletIncrement>(), user: new Map<number, WalletIncrement>() };
  private readonly channels = new Map<number, WalletIncrement>();

  add(tokenId: number, userId: number, channelId: number | undefined, credit: number, charged: number): void {
    addTo(this.wallets.token, tokenId, credit, charged);
    addTo(this.wallets.user, userId, credit, charged);
    if (channelId !== undefined) addTo(this.channels, channelId, 0, charged);
  }

  /** The wallet's sum so far (zero when there is none); it stays until `written` says it was written. */
  of(wallet: 'token' | 'user', id: number): WalletIncrement {
    return this.wallets[wallet].get(id) ?? none;
  }

  /** The wallet's sum went into an UPDATE: forget it. */
  written(wallet: 'token' | 'user', id: number): void {
    this.wallets[wallet].delete(id);
  }

  /** Every sum, each wallet once, and forgets them all. */
  drain(): { tokens: [number, WalletIncrement][]; users: [number, WalletIncrement][]; channels: [number, WalletIncrement][] } {
    const drained = { tokens: [...this.wallets.token], users: [...this.wallets.user], channels: [...this.channels] };
    this.clear();
    return drained;
  }

  clear(): void {
    this.wallets.token.clear();
    this.wallets.user.clear();
    this.channels.clear();
  }
}

function addTo(sums: Map<number, WalletIncrement>, id: number, credit: number, used: number): void {
  const sum = sums.get(id);
  if (sum === undefined) sums.set(id, { credit, used, requests: 1 });
  else {
    sum.credit += credit;
    sum.used += used;
    sum.requests += 1;
  }
}
