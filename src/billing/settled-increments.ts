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
  private readonly tokens = new Map<number, WalletIncrement>();
  private readonly users = new Map<number, WalletIncrement>();
  private readonly channels = new Map<number, WalletIncrement>();

  add(tokenId: number, userId: number, channelId: number | undefined, credit: number, charged: number): void {
    addTo(this.tokens, tokenId, credit, charged);
    addTo(this.users, userId, credit, charged);
    if (channelId !== undefined) addTo(this.channels, channelId, 0, charged);
  }

  /** The wallet's sum so far, now taken out (the caller writes it); zero when there is none. */
  takeToken(id: number): WalletIncrement {
    return takeFrom(this.tokens, id);
  }

  takeUser(id: number): WalletIncrement {
    return takeFrom(this.users, id);
  }

  /** Puts back a sum that was taken but not written (its guarded UPDATE matched no row). */
  restoreToken(id: number, increment: WalletIncrement): void {
    if (increment.requests > 0) this.tokens.set(id, increment);
  }

  restoreUser(id: number, increment: WalletIncrement): void {
    if (increment.requests > 0) this.users.set(id, increment);
  }

  /** Every sum, each wallet once, and forgets them all. */
  drain(): { tokens: [number, WalletIncrement][]; users: [number, WalletIncrement][]; channels: [number, WalletIncrement][] } {
    const drained = { tokens: [...this.tokens], users: [...this.users], channels: [...this.channels] };
    this.clear();
    return drained;
  }

  clear(): void {
    this.tokens.clear();
    this.users.clear();
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

function takeFrom(sums: Map<number, WalletIncrement>, id: number): WalletIncrement {
  const sum = sums.get(id);
  if (sum === undefined) return none;
  sums.delete(id);
  return sum;
}
