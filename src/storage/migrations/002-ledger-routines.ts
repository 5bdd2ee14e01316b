import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * The quota ledger's reserve and settle as stored routines on PostgreSQL and MySQL, so each is one round
 * trip instead of a transaction of five to nine awaited statements (BENCHMARKS.md, finding 10). SQLite
 * needs none: its ledger runs synchronous transactions in process.
 *
 * The rules are SqliteQuotaLedger's, statement for statement: balances move by guarded deltas, token
 * before user (so two requests never wait on each other in a cycle); an unlimited side is never short
 * and its balance never moves; the extra above a reservation is taken only as far as both balances
 * cover it. A routine that changes must get a new migration (PostgreSQL: CREATE OR REPLACE; MySQL: DROP
 * then CREATE), never an edit here.
 */
export function ledgerRoutinesMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const statements = dialect === 'postgres' ? postgresRoutines : dialect === 'mysql' ? mysqlRoutines : [];
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  };
}

/**
 * One call runs in the statement's own transaction (the ledger calls them outside any), so an error
 * anywhere undoes all of it. A wallet that cannot cover the reservation returns its name; the token
 * debit is then handed back while this transaction still holds the token row's lock, so no other
 * transaction ever sees it (returning instead of raising keeps refusals, a normal outcome, out of the
 * server's error log).
 */
const postgresReserve = postgresReserveFunction(false);

/** `relay_reserve`; with `model` (migration 021) it takes the model too, last and optional, and records it. */
export function postgresReserveFunction(model: boolean): string {
  return `
create or replace function relay_reserve(p_id varchar, p_token_id integer, p_user_id integer, p_amount bigint, p_owner varchar, p_now bigint${model ? ', p_model varchar default null' : ''})
returns text language plpgsql as $$
declare
  v_token_debited boolean := false;
begin
  if p_amount > 0 then
    update tokens set remain_quota = remain_quota - p_amount where id = p_token_id and unlimited_quota <> 1 and remain_quota >= p_amount;
    v_token_debited := found;
    if not v_token_debited and not exists (select 1 from tokens where id = p_token_id and unlimited_quota = 1) then
      return 'token';
    end if;
    update users set quota = quota - p_amount where id = p_user_id and unlimited_quota <> 1 and quota >= p_amount;
    if not found and not exists (select 1 from users where id = p_user_id and unlimited_quota = 1) then
      if v_token_debited then
        update tokens set remain_quota = remain_quota + p_amount where id = p_token_id;
      end if;
      return 'user';
    end if;
  end if;
  insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at${model ? ', model' : ''})
    values (p_id, p_token_id, p_user_id, p_amount, p_owner, 'reserved', null, p_now, null${model ? ', p_model' : ''});
  return 'ok';
end
$$`;
}

/**
 * Returns what was charged, or null when the reservation was not open (settle is idempotent: the row
 * lock makes a racing second settle wait, then find it settled). Rooms are what a wallet can give:
 * null when unlimited, 0 when the row is gone.
 */
const postgresSettle = `
create or replace function relay_settle(p_id varchar, p_actual bigint, p_channel_id integer, p_now bigint)
returns bigint language plpgsql as $$
declare
  v_reserved bigint;
  v_token_id integer;
  v_user_id integer;
  v_unlimited integer;
  v_balance bigint;
  v_extra bigint;
  v_charged bigint;
  v_change bigint;
begin
  select amount, token_id, user_id into v_reserved, v_token_id, v_user_id from quota_reservations where id = p_id and state = 'reserved' for update;
  if not found then
    return null;
  end if;
  v_charged := least(p_actual, v_reserved);
  if p_actual > v_reserved then
    v_extra := p_actual - v_reserved;
    select unlimited_quota, remain_quota into v_unlimited, v_balance from tokens where id = v_token_id for update;
    if not found then v_extra := 0; elsif v_unlimited <> 1 then v_extra := least(v_extra, greatest(v_balance, 0)); end if;
    select unlimited_quota, quota into v_unlimited, v_balance from users where id = v_user_id for update;
    if not found then v_extra := 0; elsif v_unlimited <> 1 then v_extra := least(v_extra, greatest(v_balance, 0)); end if;
    v_charged := v_reserved + v_extra;
  end if;
  v_change := v_reserved - v_charged;
  update tokens
    set remain_quota = case when unlimited_quota = 1 then remain_quota else remain_quota + v_change end,
        used_quota = used_quota + v_charged,
        request_count = request_count + 1
    where id = v_token_id and (v_change >= 0 or unlimited_quota = 1 or remain_quota >= -v_change);
  if v_change < 0 and not found then
    raise exception 'the token % balance changed while locked for settlement', v_token_id;
  end if;
  update users
    set quota = case when unlimited_quota = 1 then quota else quota + v_change end,
        used_quota = used_quota + v_charged,
        request_count = request_count + 1
    where id = v_user_id and (v_change >= 0 or unlimited_quota = 1 or quota >= -v_change);
  if v_change < 0 and not found then
    raise exception 'the user % balance changed while locked for settlement', v_user_id;
  end if;
  if p_channel_id is not null then
    update channels set used_quota = used_quota + v_charged, request_count = request_count + 1 where id = p_channel_id;
  end if;
  update quota_reservations set state = 'settled', settled_at = p_now, settled_amount = v_charged where id = p_id;
  return v_charged;
end
$$`;

const postgresRoutines = [postgresReserve, postgresSettle];

/**
 * MySQL procedures start and end their own transaction (the ledger calls them on an autocommit pool
 * connection) and answer with a one-row result set. ROW_COUNT() counts changed rows unless the client
 * asked for found rows, so every guarded UPDATE here changes its row whenever it matches (a debit of a
 * positive amount; request_count + 1), and unlimited wallets are told apart by a read, not by the count.
 * SELECT INTO that finds no row leaves the variable NULL (a NOT FOUND condition, not an exception).
 */
const mysqlReserve = `
create procedure relay_reserve(in p_id varchar(64), in p_token_id int, in p_user_id int, in p_amount bigint, in p_owner varchar(128), in p_now bigint)
begin
  declare v_outcome varchar(8) default 'ok';
  declare v_debited int;
  declare exit handler for sqlexception begin rollback; resignal; end;
  start transaction;
  if p_amount > 0 then
    update tokens set remain_quota = remain_quota - p_amount where id = p_token_id and unlimited_quota <> 1 and remain_quota >= p_amount;
    set v_debited = row_count();
    if v_debited = 0 and not exists (select 1 from tokens where id = p_token_id and unlimited_quota = 1) then
      set v_outcome = 'token';
    else
      update users set quota = quota - p_amount where id = p_user_id and unlimited_quota <> 1 and quota >= p_amount;
      set v_debited = row_count();
      if v_debited = 0 and not exists (select 1 from users where id = p_user_id and unlimited_quota = 1) then
        set v_outcome = 'user';
      end if;
    end if;
  end if;
  if v_outcome = 'ok' then
    insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at)
      values (p_id, p_token_id, p_user_id, p_amount, p_owner, 'reserved', null, p_now, null);
    commit;
  else
    rollback;
  end if;
  select v_outcome as outcome;
end`;

const mysqlSettle = `
create procedure relay_settle(in p_id varchar(64), in p_actual bigint, in p_channel_id int, in p_now bigint)
begin
  declare v_reserved bigint default null;
  declare v_token_id int;
  declare v_user_id int;
  declare v_unlimited int;
  declare v_balance bigint;
  declare v_extra bigint;
  declare v_charged bigint default null;
  declare v_change bigint;
  declare v_updated int;
  declare exit handler for sqlexception begin rollback; resignal; end;
  start transaction;
  select amount, token_id, user_id into v_reserved, v_token_id, v_user_id from quota_reservations where id = p_id and state = 'reserved' for update;
  if v_reserved is not null then
    set v_charged = least(p_actual, v_reserved);
    if p_actual > v_reserved then
      set v_extra = p_actual - v_reserved;
      set v_unlimited = null;
      select unlimited_quota, remain_quota into v_unlimited, v_balance from tokens where id = v_token_id for update;
      if v_unlimited is null then set v_extra = 0; elseif v_unlimited <> 1 then set v_extra = least(v_extra, greatest(v_balance, 0)); end if;
      set v_unlimited = null;
      select unlimited_quota, quota into v_unlimited, v_balance from users where id = v_user_id for update;
      if v_unlimited is null then set v_extra = 0; elseif v_unlimited <> 1 then set v_extra = least(v_extra, greatest(v_balance, 0)); end if;
      set v_charged = v_reserved + v_extra;
    end if;
    set v_change = v_reserved - v_charged;
    update tokens
      set remain_quota = case when unlimited_quota = 1 then remain_quota else remain_quota + v_change end,
          used_quota = used_quota + v_charged,
          request_count = request_count + 1
      where id = v_token_id and (v_change >= 0 or unlimited_quota = 1 or remain_quota >= -v_change);
    set v_updated = row_count();
    if v_change < 0 and v_updated = 0 then
      signal sqlstate '45000' set message_text = 'the token balance changed while locked for settlement';
    end if;
    update users
      set quota = case when unlimited_quota = 1 then quota else quota + v_change end,
          used_quota = used_quota + v_charged,
          request_count = request_count + 1
      where id = v_user_id and (v_change >= 0 or unlimited_quota = 1 or quota >= -v_change);
    set v_updated = row_count();
    if v_change < 0 and v_updated = 0 then
      signal sqlstate '45000' set message_text = 'the user balance changed while locked for settlement';
    end if;
    if p_channel_id is not null then
      update channels set used_quota = used_quota + v_charged, request_count = request_count + 1 where id = p_channel_id;
    end if;
    update quota_reservations set state = 'settled', settled_at = p_now, settled_amount = v_charged where id = p_id;
  end if;
  commit;
  select v_charged as charged;
end`;

const mysqlRoutines = ['drop procedure if exists relay_reserve', mysqlReserve, 'drop procedure if exists relay_settle', mysqlSettle];
