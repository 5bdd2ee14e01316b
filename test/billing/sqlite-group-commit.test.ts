import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { QuotaLedger } from '../../src/billing/quota-ledger.js';
import { SqliteQuotaLedger } from '../../src/billing/sqlite-quota-ledger.js';
import { openLedgerDatabase, type LedgerDatabase } from './ledger-test-setup.js';

const now = 1_770_000_000_000;

/** The SQLite ledger's group commit: concurrent requests share a transaction, never each other's outcome. */
describe('SqliteQuotaLedger group commit', () => {
  let database: LedgerDatabase;
  let ledger: QuotaLedger;

  beforeEach(async () => {
    database = await openLedgerDatabase('sqlite');
    ledger = database.ledger();
  });
  afterEach(async () => {
    await database.close();
  });

  const balances = async (account: { userId: number; tokenId: number }) => {
    const token = await database.handle.db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', account.tokenId).executeTakeFirstOrThrow();
    const user = await database.handle.db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', account.userId).executeTakeFirstOrThrow();
    return { token: Number(token.remain_quota), tokenUsed: Number(token.used_quota), user: Number(user.quota), userUsed: Number(user.used_quota) };
  };
  const reservationStates = async () =>
    Object.fromEntries(
      (await database.handle.db.selectFrom('quota_reservations').select(['id', 'state', 'settled_amount']).execute()).map((row) => [row.id, row.settled_amount === null ? row.state : `${row.state}:${row.settled_amount}`]),
    );

  it('refuses only the reservation whose token is short when several share a batch', async () => {
    const rich = await database.createAccount({ user: 10_000, token: 1_000 });
    const poor = await database.createAccount({ user: 10_000, token: 50 });
    const outcomes = await Promise.all([
      ledger.reserve({ id: 'rich-1', ...rich, amount: 300 }, now),
      ledger.reserve({ id: 'poor-1', ...poor, amount: 40 }, now),
      ledger.reserve({ id: 'rich-2', ...rich, amount: 300 }, now),
      // The poor token has 10 left after poor-1, in the same transaction: this one must see that.
      ledger.reserve({ id: 'poor-2', ...poor, amount: 40 }, now),
      ledger.reserve({ id: 'rich-3', ...rich, amount: 300 }, now),
    ]);
    expect(outcomes).toEqual([{ ok: true }, { ok: true }, { ok: true }, { ok: false, short: 'token' }, { ok: true }]);
    expect(await balances(rich)).toMatchObject({ token: 100, user: 9_100 });
    expect(await balances(poor)).toMatchObject({ token: 10, user: 9_960 });
    // The refused reservation left no row behind (it writes its row last), and nothing was replayed.
    expect(await reservationStates()).toEqual({ 'rich-1': 'reserved', 'poor-1': 'reserved', 'rich-2': 'reserved', 'rich-3': 'reserved' });
  });

  it('refuses on the user wallet within a batch while the token wallet of the same request is left untouched', async () => {
    const first = await database.createAccount({ user: 100, token: 1_000 });
    const other = await database.createAccount({ user: 10_000, token: 1_000 });
    const outcomes = await Promise.all([
      ledger.reserve({ id: 'u-1', ...first, amount: 80 }, now),
      // Its token debit succeeds, its user debit does not: the token is credited back, no row is written.
      ledger.reserve({ id: 'u-2', ...first, amount: 80 }, now),
      ledger.reserve({ id: 'o-1', ...other, amount: 100 }, now),
      // Sees the token balance as u-2 left it, in the same transaction: 920, not 840.
      ledger.reserve({ id: 'u-3', ...first, amount: 20 }, now),
      ledger.reserve({ id: 'u-4', ...first, amount: 900 }, now),
    ]);
    expect(outcomes).toEqual([{ ok: true }, { ok: false, short: 'user' }, { ok: true }, { ok: true }, { ok: false, short: 'user' }]);
    expect(await balances(first)).toMatchObject({ token: 900, user: 0 });
    expect(await balances(other)).toMatchObject({ token: 900, user: 9_900 });
    expect(await reservationStates()).toEqual({ 'u-1': 'reserved', 'o-1': 'reserved', 'u-3': 'reserved' });
  });

  it('refuses an unlimited token whose user is short without touching the token', async () => {
    const account = await database.createAccount({ user: 50, token: null });
    const outcomes = await Promise.all([ledger.reserve({ id: 'x-1', ...account, amount: 80 }, now), ledger.reserve({ id: 'x-2', ...account, amount: 30 }, now)]);
    expect(outcomes).toEqual([{ ok: false, short: 'user' }, { ok: true }]);
    expect(await balances(account)).toMatchObject({ token: 0, user: 20 });
    expect(await reservationStates()).toEqual({ 'x-2': 'reserved' });
  });

  it('mixes reserves and settles in one batch, each with its own outcome', async () => {
    const account = await database.createAccount({ user: 10_000, token: 1_000 });
    const channelId = await database.createChannel();
    await ledger.reserve({ id: 'earlier-1', ...account, amount: 200 }, now);
    await ledger.reserve({ id: 'earlier-2', ...account, amount: 200 }, now);
    await ledger.settle('earlier-2', { actualAmount: 50, channelId }, now);
    const outcomes = await Promise.all([
      ledger.settle('earlier-1', { actualAmount: 120, channelId }, now),
      ledger.reserve({ id: 'fresh', ...account, amount: 700 }, now),
      // Already settled: idempotent, nothing applied.
      ledger.settle('earlier-2', { actualAmount: 999, channelId }, now),
      // Reserved and settled in the same batch, in that order.
      ledger.settle('fresh', { actualAmount: 10, channelId }, now),
      // Fits only because earlier-1 and fresh released their remainders earlier in this same batch.
      ledger.reserve({ id: 'too-much', ...account, amount: 100 }, now),
    ]);
    expect(outcomes).toEqual([{ applied: true, charged: 120 }, { ok: true }, { applied: false, charged: 0 }, { applied: true, charged: 10 }, { ok: true }]);
    // 1000 − 120 − 50 − 10 charged − 100 still reserved by too-much.
    expect(await balances(account)).toMatchObject({ token: 720, tokenUsed: 180, user: 9_720, userUsed: 180 });
    const channel = await database.handle.db.selectFrom('channels').select(['used_quota']).where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(Number(channel.used_quota)).toBe(180);
    expect(await reservationStates()).toEqual({ 'earlier-1': 'settled:120', 'earlier-2': 'settled:50', fresh: 'settled:10', 'too-much': 'reserved' });
  });

  it("commits a settle with the next request's reserve, one request at a time, and that reserve counts what the settle handed back", async () => {
    const account = await database.createAccount({ user: 10_000, token: 1_000 });
    await ledger.reserve({ id: 'first', ...account, amount: 1_000 }, now);
    // Its own transaction would start only from the 1 ms timer: held still here, however slow the turns.
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const settled = ledger.settle('first', { actualAmount: 300, channelId: undefined }, now);
    // The answer went out; the settle has no transaction of its own at the end of this turn.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    vi.useRealTimers();
    expect(await reservationStates()).toEqual({ first: 'reserved' });
    // The next request's reserve fits only with the 700 the settle hands back: both go in one transaction.
    const [charge, next] = await Promise.all([settled, ledger.reserve({ id: 'second', ...account, amount: 700 }, now)]);
    expect({ charge, next }).toEqual({ charge: { applied: true, charged: 300 }, next: { ok: true } });
    expect(await reservationStates()).toEqual({ first: 'settled:300', second: 'reserved' });
    expect(await balances(account)).toMatchObject({ token: 0, tokenUsed: 300, user: 9_000, userUsed: 300 });
  });

  it('rejects only the operation that fails unexpectedly, undoing its writes', async () => {
    const healthy = await database.createAccount({ user: 10_000, token: 1_000 });
    const broken = await database.createAccount({ user: 10_000, token: 1_000 });
    // The broken user's debit fails after the reservation row and the token debit were written.
    await sql.raw(`create trigger break_user_debit before update on users when new.id = ${broken.userId} begin select raise(abort, 'disk says no'); end`).execute(database.handle.db);
    const results = await Promise.allSettled([
      ledger.reserve({ id: 'healthy-1', ...healthy, amount: 100 }, now),
      ledger.reserve({ id: 'broken-1', ...broken, amount: 100 }, now),
      ledger.reserve({ id: 'healthy-2', ...healthy, amount: 100 }, now),
    ]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: { ok: true } });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { message: 'disk says no' } });
    expect(results[2]).toEqual({ status: 'fulfilled', value: { ok: true } });
    expect(await balances(healthy)).toMatchObject({ token: 800, user: 9_800 });
    expect(await balances(broken)).toMatchObject({ token: 1_000, user: 10_000 });
    expect(await reservationStates()).toEqual({ 'healthy-1': 'reserved', 'healthy-2': 'reserved' });
  });

  it('replays a batch with a faulty settle so that every other step takes effect exactly once', async () => {
    const healthy = await database.createAccount({ user: 10_000, token: 1_000 });
    const broken = await database.createAccount({ user: 10_000, token: 1_000 });
    const channelId = await database.createChannel();
    await ledger.reserve({ id: 'healthy-old', ...healthy, amount: 100 }, now);
    await ledger.reserve({ id: 'broken-old', ...broken, amount: 100 }, now);
    // The broken user's settlement update changes no row: the guarded settle (actual > reserved) finds the
    // balance "changed" after its claim and its token settlement were written — a fault, not a Short.
    await sql.raw(`create trigger skip_user_settle before update on users when new.id = ${broken.userId} and new.used_quota <> old.used_quota begin select raise(ignore); end`).execute(database.handle.db);
    const results = await Promise.allSettled([
      ledger.reserve({ id: 'healthy-1', ...healthy, amount: 100 }, now),
      ledger.settle('healthy-old', { actualAmount: 150, channelId }, now),
      // Refused, before the fault: must stay refused and leave no trace after the replay.
      ledger.reserve({ id: 'healthy-short', ...healthy, amount: 5_000 }, now),
      ledger.settle('broken-old', { actualAmount: 150, channelId }, now),
      ledger.reserve({ id: 'healthy-2', ...healthy, amount: 100 }, now),
      ledger.settle('healthy-1', { actualAmount: 40, channelId }, now),
    ]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: { ok: true } });
    expect(results[1]).toEqual({ status: 'fulfilled', value: { applied: true, charged: 150 } });
    expect(results[2]).toEqual({ status: 'fulfilled', value: { ok: false, short: 'token' } });
    expect(results[3]).toMatchObject({ status: 'rejected', reason: { message: `user ${broken.userId} balance changed during settlement` } });
    expect(results[4]).toEqual({ status: 'fulfilled', value: { ok: true } });
    expect(results[5]).toEqual({ status: 'fulfilled', value: { applied: true, charged: 40 } });
    // 1000 − 150 − 40 charged − 100 still reserved by healthy-2: each debit and charge counted once.
    expect(await balances(healthy)).toMatchObject({ token: 710, tokenUsed: 190, user: 9_710, userUsed: 190 });
    // The faulty settle's claim and token settlement were rolled back: still reserved, nothing charged.
    expect(await balances(broken)).toMatchObject({ token: 900, tokenUsed: 0, user: 9_900, userUsed: 0 });
    const channel = await database.handle.db.selectFrom('channels').select(['used_quota', 'request_count']).where('id', '=', channelId).executeTakeFirstOrThrow();
    expect({ used: Number(channel.used_quota), requests: Number(channel.request_count) }).toEqual({ used: 190, requests: 2 });
    expect(await reservationStates()).toEqual({ 'healthy-old': 'settled:150', 'broken-old': 'reserved', 'healthy-1': 'settled:40', 'healthy-2': 'reserved' });
  });

  describe('settled counters written once per transaction', () => {
    const counters = async (table: 'tokens' | 'users' | 'channels', id: number) => {
      const row = await database.handle.db.selectFrom(table).select(['used_quota', 'request_count']).where('id', '=', id).executeTakeFirstOrThrow();
      return { used: Number(row.used_quota), requests: Number(row.request_count) };
    };

    it('adds every settle of a batch to its token, user and channel exactly once, wallets apart', async () => {
      const first = await database.createAccount({ user: 10_000, token: 5_000 });
      const second = await database.createAccount({ user: 10_000, token: 5_000 });
      const channels = [await database.createChannel(), await database.createChannel()];
      const ids = Array.from({ length: 12 }, (_, index) => `c-${index}`);
      await Promise.all(ids.map((id, index) => ledger.reserve({ id, ...(index % 3 === 0 ? second : first), amount: 300 }, now)));
      const outcomes = await Promise.all(ids.map((id, index) => ledger.settle(id, { actualAmount: 10 * (index + 1), channelId: channels[index % 2] }, now)));
      expect(outcomes.map((outcome) => outcome.charged)).toEqual(ids.map((_, index) => 10 * (index + 1)));
      // Charged 10 × (index + 1): second has indexes 0, 3, 6, 9 (220), first the other eight (560).
      expect(await balances(first)).toMatchObject({ token: 4_440, tokenUsed: 560, user: 9_440, userUsed: 560 });
      expect(await balances(second)).toMatchObject({ token: 4_780, tokenUsed: 220, user: 9_780, userUsed: 220 });
      expect(await counters('tokens', first.tokenId)).toEqual({ used: 560, requests: 8 });
      expect(await counters('users', second.userId)).toEqual({ used: 220, requests: 4 });
      expect(await counters('channels', channels[0] as number)).toEqual({ used: 360, requests: 6 });
      expect(await counters('channels', channels[1] as number)).toEqual({ used: 420, requests: 6 });
    });

    it('counts what earlier settles of the batch handed back when a later settle runs over its reservation', async () => {
      const account = await database.createAccount({ user: 10_000, token: 400 });
      await ledger.reserve({ id: 'refunds', ...account, amount: 200 }, now);
      await ledger.reserve({ id: 'overruns', ...account, amount: 200 }, now);
      // Token balance 0: the overrun's extra 150 is covered only by the 150 the first settle hands back.
      const outcomes = await Promise.all([ledger.settle('refunds', { actualAmount: 50, channelId: undefined }, now), ledger.settle('overruns', { actualAmount: 350, channelId: undefined }, now)]);
      expect(outcomes).toEqual([{ applied: true, charged: 50 }, { applied: true, charged: 350 }]);
      expect(await balances(account)).toMatchObject({ token: 0, tokenUsed: 400, user: 9_600, userUsed: 400 });
      expect(await counters('tokens', account.tokenId)).toEqual({ used: 400, requests: 2 });
      expect(await reservationStates()).toEqual({ refunds: 'settled:50', overruns: 'settled:350' });
    });

    it('keeps the counters a settle handed to a wallet when a later reserve of the batch is refused by the user', async () => {
      const account = await database.createAccount({ user: 500, token: 10_000 });
      await ledger.reserve({ id: 'done', ...account, amount: 300 }, now);
      const outcomes = await Promise.all([
        ledger.settle('done', { actualAmount: 100, channelId: undefined }, now),
        // Its token debit takes the settle's counters with it; the user (500 − 300 + 200 = 400) is short.
        ledger.reserve({ id: 'refused', ...account, amount: 450 }, now),
        ledger.reserve({ id: 'fits', ...account, amount: 400 }, now),
      ]);
      expect(outcomes).toEqual([{ applied: true, charged: 100 }, { ok: false, short: 'user' }, { ok: true }]);
      expect(await balances(account)).toMatchObject({ token: 9_500, tokenUsed: 100, user: 0, userUsed: 100 });
      expect(await counters('tokens', account.tokenId)).toEqual({ used: 100, requests: 1 });
      expect(await counters('users', account.userId)).toEqual({ used: 100, requests: 1 });
      expect(await reservationStates()).toEqual({ done: 'settled:100', fits: 'reserved' });
    });

    it('writes the counters of the settles before a faulty step once, after the batch is replayed', async () => {
      const healthy = await database.createAccount({ user: 10_000, token: 1_000 });
      const broken = await database.createAccount({ user: 10_000, token: 1_000 });
      const channelId = await database.createChannel();
      await Promise.all(['h-1', 'h-2', 'h-3'].map((id) => ledger.reserve({ id, ...healthy, amount: 100 }, now)));
      await sql.raw(`create trigger break_user_debit before update on users when new.id = ${broken.userId} begin select raise(abort, 'disk says no'); end`).execute(database.handle.db);
      const results = await Promise.allSettled([
        ledger.settle('h-1', { actualAmount: 10, channelId }, now),
        ledger.settle('h-2', { actualAmount: 20, channelId }, now),
        ledger.reserve({ id: 'b-1', ...broken, amount: 100 }, now),
        ledger.settle('h-3', { actualAmount: 30, channelId }, now),
      ]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(await balances(healthy)).toMatchObject({ token: 940, tokenUsed: 60, user: 9_940, userUsed: 60 });
      expect(await counters('tokens', healthy.tokenId)).toEqual({ used: 60, requests: 3 });
      expect(await counters('channels', channelId)).toEqual({ used: 60, requests: 3 });
    });

    it('loses the whole transaction, and charges nothing, when its counters cannot be written', async () => {
      const account = await database.createAccount({ user: 10_000, token: 1_000 });
      const channelId = await database.createChannel();
      await Promise.all(['w-1', 'w-2'].map((id) => ledger.reserve({ id, ...account, amount: 100 }, now)));
      await sql.raw(`create trigger break_channel before update on channels when new.id = ${channelId} begin select raise(abort, 'channel row broken'); end`).execute(database.handle.db);
      const results = await Promise.allSettled([ledger.settle('w-1', { actualAmount: 10, channelId }, now), ledger.settle('w-2', { actualAmount: 20, channelId }, now)]);
      expect(results).toMatchObject([
        { status: 'rejected', reason: { message: 'channel row broken' } },
        { status: 'rejected', reason: { message: 'channel row broken' } },
      ]);
      expect(await balances(account)).toMatchObject({ token: 800, tokenUsed: 0, user: 9_800, userUsed: 0 });
      expect(await reservationStates()).toEqual({ 'w-1': 'reserved', 'w-2': 'reserved' });
      // Nothing of it is left over for the next transaction either.
      await sql.raw('drop trigger break_channel').execute(database.handle.db);
      expect(await ledger.settle('w-1', { actualAmount: 10, channelId }, now)).toEqual({ applied: true, charged: 10 });
      expect(await counters('channels', channelId)).toEqual({ used: 10, requests: 1 });
      expect(await counters('tokens', account.tokenId)).toEqual({ used: 10, requests: 1 });
    });
  });

  it('waits for a query-builder transaction on the shared connection instead of joining it', async () => {
    const account = await database.createAccount({ user: 10_000, token: 1_000 });
    let reserved = false;
    await expect(
      database.handle.db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ quota: 5 }).where('id', '=', account.userId).execute();
        const pending = ledger.reserve({ id: 'during', ...account, amount: 100 }, now).then((outcome) => {
          reserved = true;
          return outcome;
        });
        for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
        expect(reserved).toBe(false);
        void pending;
        throw new Error('admin transaction rolls back');
      }),
    ).rejects.toThrow('admin transaction rolls back');
    for (let turn = 0; turn < 5 && !reserved; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(reserved).toBe(true);
    // The reservation ran after the rollback, against the real balance, and stayed.
    expect(await balances(account)).toMatchObject({ token: 900, user: 9_900 });
    expect(await reservationStates()).toEqual({ during: 'reserved' });
  });

  it('splits a burst larger than the batch cap over several transactions without changing any outcome', async () => {
    const account = await database.createAccount({ user: 1_000_000, token: 1_000 });
    const small = new SqliteQuotaLedger(database.handle.sqliteConnection!, 'node-small', 3);
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, index) => small.reserve({ id: `burst-${index}`, ...account, amount: 100 }, now)));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(10);
    expect(outcomes.slice(10)).toEqual([{ ok: false, short: 'token' }, { ok: false, short: 'token' }]);
    expect(await balances(account)).toMatchObject({ token: 0, user: 999_000 });
  });

  describe('settling what this instance reserved', () => {
    /** Counts the reads of open reservations by `subject` (its prepared statement, wrapped). */
    const countRowReads = (subject: SqliteQuotaLedger) => {
      const statement = (subject as unknown as { statements: { openReservation: { get(...args: unknown[]): unknown } } }).statements.openReservation;
      const read = statement.get.bind(statement);
      const counter = { reads: 0 };
      statement.get = (...args: unknown[]) => {
        counter.reads += 1;
        return read(...args);
      };
      return counter;
    };
    const sqliteLedger = (owner: string) => new SqliteQuotaLedger(database.handle.sqliteConnection!, owner);

    it('takes the amount and wallets from memory instead of reading the row back, and reads the rows of reservations it did not make', async () => {
      const account = await database.createAccount({ user: 10_000, token: 1_000 });
      const channelId = await database.createChannel();
      const first = sqliteLedger('node-a');
      const reads = countRowReads(first);
      expect(await first.reserve({ id: 'own', ...account, amount: 300 }, now)).toEqual({ ok: true });
      expect(await first.settle('own', { actualAmount: 120, channelId }, now)).toEqual({ applied: true, charged: 120 });
      expect(reads.reads).toBe(0);
      // A reservation another instance made (or this one before a restart): its row is read.
      const second = sqliteLedger('node-a');
      expect(await second.reserve({ id: 'other', ...account, amount: 200 }, now)).toEqual({ ok: true });
      expect(await first.settle('other', { actualAmount: 250, channelId }, now)).toEqual({ applied: true, charged: 250 });
      expect(reads.reads).toBe(1);
      expect(await balances(account)).toMatchObject({ token: 630, tokenUsed: 370, user: 9_630, userUsed: 370 });
      expect(await reservationStates()).toEqual({ own: 'settled:120', other: 'settled:250' });
    });

    it('charges once when one reservation is settled twice in the same batch', async () => {
      const account = await database.createAccount({ user: 10_000, token: 1_000 });
      const subject = sqliteLedger('node-a');
      await subject.reserve({ id: 'twice', ...account, amount: 300 }, now);
      const outcomes = await Promise.all([subject.settle('twice', { actualAmount: 100, channelId: undefined }, now), subject.settle('twice', { actualAmount: 200, channelId: undefined }, now)]);
      expect(outcomes).toEqual([
        { applied: true, charged: 100 },
        { applied: false, charged: 0 },
      ]);
      expect(await balances(account)).toMatchObject({ token: 900, tokenUsed: 100, user: 9_900, userUsed: 100 });
      // Forgotten once settled: a later settle reads the row and finds it settled.
      const reads = countRowReads(subject);
      expect(await subject.settle('twice', { actualAmount: 50, channelId: undefined }, now)).toEqual({ applied: false, charged: 0 });
      expect(reads.reads).toBe(1);
    });

    it('does not settle again a remembered reservation that something else settled meanwhile', async () => {
      const account = await database.createAccount({ user: 10_000, token: 1_000 });
      const subject = sqliteLedger('node-a');
      await subject.reserve({ id: 'recovered', ...account, amount: 300 }, now);
      // As another instance's recovery would: settled at its reserved amount, behind this instance's back.
      await sql.raw(`update quota_reservations set state = 'settled', settled_amount = amount where id = 'recovered'`).execute(database.handle.db);
      expect(await subject.settle('recovered', { actualAmount: 100, channelId: undefined }, now)).toEqual({ applied: false, charged: 0 });
      expect(await balances(account)).toMatchObject({ token: 700, tokenUsed: 0, user: 9_700, userUsed: 0 });
      expect(await reservationStates()).toEqual({ recovered: 'settled:300' });
    });
  });
});
