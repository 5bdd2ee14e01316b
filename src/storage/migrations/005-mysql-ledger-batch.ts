import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * MySQL/MariaDB only: the batch of migration 004, `relay_ledger_batch`, so that a turn's reserves and
 * settles go to the server as one call and one transaction there too.
 *
 * MySQL procedures cannot be called inside another procedure's transaction if they start and commit
 * their own, as migration 002's do. So the rules move into `relay_reserve_in_tx` and `relay_settle_in_tx`,
 * which run in their caller's transaction and answer through an OUT parameter, and `relay_reserve` /
 * `relay_settle` become wrappers that open the transaction, call them and commit: one body per rule,
 * shared by the single calls and the batch. The bodies are migration 002's, statement for statement,
 * but for one thing: a refused reserve hands its token debit back by an UPDATE (still under the row
 * lock, so nobody sees it) instead of rolling back, since the batch's other calls share the transaction.
 *
 * The batch takes its calls as two JSON arrays, `[[id, token_id, user_id, amount], …]` and
 * `[[id, actual, channel_id], …]`, read with JSON_TABLE (MySQL ≥ 8.0.4, MariaDB ≥ 10.6). It locks every
 * row it will touch first, one at a time in one global order — the open reservations it settles, then
 * the tokens, then the users, then the channels, each by id — the order in which the single calls take
 * them, so batches of different processes never wait on each other in a cycle. Then it runs the settles,
 * then the reserves, each with its own outcome, and answers with one row of two JSON arrays in the order
 * of its arguments: each reserve's outcome ('ok', 'token', 'user') and each settle's charge (null when
 * the reservation was not open). Any error rolls all of it back.
 *
 * A server without JSON_TABLE cannot parse the batch: the migration then leaves it out (the wrappers are
 * still made) and the ledger, finding no batch routine, calls the single routines one by one.
 */
export function mysqlLedgerBatchMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'mysql') return;
      for (const statement of routines) await sql.raw(statement).execute(db);
      try {
        await sql.raw(batch).execute(db);
      } catch (error) {
        if ((error as { errno?: unknown }).errno !== mysqlParseError) throw error;
      }
    },
  };
}

/** ER_PARSE_ERROR: what a server older than JSON_TABLE answers to the batch's body. */
export const mysqlParseError = 1064;

/**
 * A `select … into` that finds no row raises NOT FOUND; each body here swallows it (the variables stay
 * NULL, which the rules read as "no row"), so that it never reaches a handler of the batch's cursors.
 */
const reserveInTransaction = mysqlReserveInTransaction(false);

/** `relay_reserve_in_tx`; with `model` (migration 021) it takes the model before its answer and records it. */
export function mysqlReserveInTransaction(model: boolean): string {
  return `
create procedure relay_reserve_in_tx(in p_id varchar(64), in p_token_id int, in p_user_id int, in p_amount bigint, in p_owner varchar(128), in p_now bigint, ${model ? 'in p_model varchar(191), ' : ''}out p_outcome varchar(8))
begin
  declare v_token_debited int default 0;
  declare v_user_debited int;
  declare continue handler for not found begin end;
  set p_outcome = 'ok';
  if p_amount > 0 then
    update tokens set remain_quota = remain_quota - p_amount where id = p_token_id and unlimited_quota <> 1 and remain_quota >= p_amount;
    set v_token_debited = row_count();
    if v_token_debited = 0 and not exists (select 1 from tokens where id = p_token_id and unlimited_quota = 1) then
      set p_outcome = 'token';
    else
      update users set quota = quota - p_amount where id = p_user_id and unlimited_quota <> 1 and quota >= p_amount;
      set v_user_debited = row_count();
      if v_user_debited = 0 and not exists (select 1 from users where id = p_user_id and unlimited_quota = 1) then
        set p_outcome = 'user';
        if v_token_debited > 0 then
          update tokens set remain_quota = remain_quota + p_amount where id = p_token_id;
        end if;
      end if;
    end if;
  end if;
  if p_outcome = 'ok' then
    insert into quota_reservations (id, token_id, user_id, amount, owner, state, settled_amount, created_at, settled_at${model ? ', model' : ''})
      values (p_id, p_token_id, p_user_id, p_amount, p_owner, 'reserved', null, p_now, null${model ? ', p_model' : ''});
  end if;
end`;
}

const settleInTransaction = `
create procedure relay_settle_in_tx(in p_id varchar(64), in p_actual bigint, in p_channel_id int, in p_now bigint, out p_charged bigint)
begin
  declare v_reserved bigint default null;
  declare v_token_id int;
  declare v_user_id int;
  declare v_unlimited int;
  declare v_balance bigint;
  declare v_extra bigint;
  declare v_change bigint;
  declare v_updated int;
  declare continue handler for not found begin end;
  set p_charged = null;
  select amount, token_id, user_id into v_reserved, v_token_id, v_user_id from quota_reservations where id = p_id and state = 'reserved' for update;
  if v_reserved is not null then
    set p_charged = least(p_actual, v_reserved);
    if p_actual > v_reserved then
      set v_extra = p_actual - v_reserved;
      set v_unlimited = null;
      select unlimited_quota, remain_quota into v_unlimited, v_balance from tokens where id = v_token_id for update;
      if v_unlimited is null then set v_extra = 0; elseif v_unlimited <> 1 then set v_extra = least(v_extra, greatest(v_balance, 0)); end if;
      set v_unlimited = null;
      select unlimited_quota, quota into v_unlimited, v_balance from users where id = v_user_id for update;
      if v_unlimited is null then set v_extra = 0; elseif v_unlimited <> 1 then set v_extra = least(v_extra, greatest(v_balance, 0)); end if;
      set p_charged = v_reserved + v_extra;
    end if;
    set v_change = v_reserved - p_charged;
    update tokens
      set remain_quota = case when unlimited_quota = 1 then remain_quota else remain_quota + v_change end,
          used_quota = used_quota + p_charged,
          request_count = request_count + 1
      where id = v_token_id and (v_change >= 0 or unlimited_quota = 1 or remain_quota >= -v_change);
    set v_updated = row_count();
    if v_change < 0 and v_updated = 0 then
      signal sqlstate '45000' set message_text = 'the token balance changed while locked for settlement';
    end if;
    update users
      set quota = case when unlimited_quota = 1 then quota else quota + v_change end,
          used_quota = used_quota + p_charged,
          request_count = request_count + 1
      where id = v_user_id and (v_change >= 0 or unlimited_quota = 1 or quota >= -v_change);
    set v_updated = row_count();
    if v_change < 0 and v_updated = 0 then
      signal sqlstate '45000' set message_text = 'the user balance changed while locked for settlement';
    end if;
    if p_channel_id is not null then
      update channels set used_quota = used_quota + p_charged, request_count = request_count + 1 where id = p_channel_id;
    end if;
    update quota_reservations set state = 'settled', settled_at = p_now, settled_amount = p_charged where id = p_id;
  end if;
end`;

const reserve = mysqlReserve('relay_reserve', undefined);

/**
 * A single reserve's wrapper: its own transaction around `relay_reserve_in_tx`. `model` (migration 021):
 * how the model reaches that procedure — a parameter of this one, or null (the 6-argument wrapper kept for
 * the callers of an earlier version).
 */
export function mysqlReserve(name: string, model: 'parameter' | 'null' | undefined): string {
  const parameter = model === 'parameter' ? ', in p_model varchar(191)' : '';
  const argument = model === undefined ? '' : model === 'parameter' ? 'p_model, ' : 'null, ';
  return `
create procedure ${name}(in p_id varchar(64), in p_token_id int, in p_user_id int, in p_amount bigint, in p_owner varchar(128), in p_now bigint${parameter})
begin
  declare v_outcome varchar(8);
  declare exit handler for sqlexception begin rollback; resignal; end;
  start transaction;
  call relay_reserve_in_tx(p_id, p_token_id, p_user_id, p_amount, p_owner, p_now, ${argument}v_outcome);
  commit;
  select v_outcome as outcome;
end`;
}

const settle = `
create procedure relay_settle(in p_id varchar(64), in p_actual bigint, in p_channel_id int, in p_now bigint)
begin
  declare v_charged bigint;
  declare exit handler for sqlexception begin rollback; resignal; end;
  start transaction;
  call relay_settle_in_tx(p_id, p_actual, p_channel_id, p_now, v_charged);
  commit;
  select v_charged as charged;
end`;

const routines = [
  'drop procedure if exists relay_reserve_in_tx',
  reserveInTransaction,
  'drop procedure if exists relay_settle_in_tx',
  settleInTransaction,
  'drop procedure if exists relay_reserve',
  reserve,
  'drop procedure if exists relay_settle',
  settle,
  'drop procedure if exists relay_ledger_batch',
];

/** A block that locks the rows of `table` whose ids `ids` (a cursor's SELECT of one int column) lists, one by one in that order. */
function lockInOrder(label: string, ids: string, table: string): string {
  return `  begin
    declare v_done int default 0;
    declare v_id int;
    declare v_found int;
    declare c cursor for ${ids};
    declare continue handler for not found set v_done = 1;
    open c;
    ${label}: loop
      fetch c into v_id;
      if v_done = 1 then leave ${label}; end if;
      select count(*) into v_found from ${table} where id = v_id for update;
    end loop;
    close c;
  end;`;
}

/**
 * Each locking loop is a block of its own, so that its NOT FOUND handler (the end of its cursor) covers
 * only its FETCH. A lock is taken by a point `select count(*) … for update`, which always answers one row.
 */
const batch = mysqlBatch(false);

/** With `model` (migration 021): a reserve's row may carry its model fifth (`$[4]`; null when it does not). */
export function mysqlBatch(model: boolean): string {
  return `
create procedure relay_ledger_batch(in p_reserves longtext, in p_settles longtext, in p_owner varchar(128), in p_now bigint)
begin
  declare v_token_ids longtext;
  declare v_user_ids longtext;
  declare v_outcomes longtext default '[]';
  declare v_charges longtext default '[]';
  declare exit handler for sqlexception begin rollback; resignal; end;
  start transaction;
  select coalesce(json_arrayagg(token_id), '[]'), coalesce(json_arrayagg(user_id), '[]') into v_token_ids, v_user_ids
    from json_table(p_reserves, '$[*]' columns (token_id int path '$[1]', user_id int path '$[2]')) as r;
  begin
    declare v_done int default 0;
    declare v_id varchar(64);
    declare v_found int;
    declare v_token_id int;
    declare v_user_id int;
    declare c cursor for select distinct id from json_table(p_settles, '$[*]' columns (id varchar(64) path '$[0]')) as s order by id;
    declare continue handler for not found set v_done = 1;
    open c;
    lock_reservations: loop
      fetch c into v_id;
      if v_done = 1 then leave lock_reservations; end if;
      select count(*), max(token_id), max(user_id) into v_found, v_token_id, v_user_id from quota_reservations where id = v_id and state = 'reserved' for update;
      if v_found > 0 then
        set v_token_ids = json_array_append(v_token_ids, '$', v_token_id), v_user_ids = json_array_append(v_user_ids, '$', v_user_id);
      end if;
    end loop;
    close c;
  end;
${lockInOrder('lock_tokens', "select distinct id from json_table(v_token_ids, '$[*]' columns (id int path '$')) as t order by id", 'tokens')}
${lockInOrder('lock_users', "select distinct id from json_table(v_user_ids, '$[*]' columns (id int path '$')) as u order by id", 'users')}
${lockInOrder('lock_channels', "select distinct id from json_table(p_settles, '$[*]' columns (id int path '$[2]')) as s where id is not null order by id", 'channels')}
  begin
    declare v_done int default 0;
    declare v_id varchar(64);
    declare v_actual bigint;
    declare v_channel_id int;
    declare v_charged bigint;
    declare c cursor for select id, actual, channel_id from json_table(p_settles, '$[*]' columns (n for ordinality, id varchar(64) path '$[0]', actual bigint path '$[1]', channel_id int path '$[2]')) as s order by n;
    declare continue handler for not found set v_done = 1;
    open c;
    settle_each: loop
      fetch c into v_id, v_actual, v_channel_id;
      if v_done = 1 then leave settle_each; end if;
      call relay_settle_in_tx(v_id, v_actual, v_channel_id, p_now, v_charged);
      set v_charges = json_array_append(v_charges, '$', v_charged);
    end loop;
    close c;
  end;
  begin
    declare v_done int default 0;
    declare v_id varchar(64);
    declare v_token_id int;
    declare v_user_id int;
    declare v_amount bigint;
    declare v_outcome varchar(8);${model ? '\n    declare v_model varchar(191);' : ''}
    declare c cursor for select id, token_id, user_id, amount${model ? ', model' : ''} from json_table(p_reserves, '$[*]' columns (n for ordinality, id varchar(64) path '$[0]', token_id int path '$[1]', user_id int path '$[2]', amount bigint path '$[3]'${model ? ", model varchar(191) path '$[4]'" : ''})) as r order by n;
    declare continue handler for not found set v_done = 1;
    open c;
    reserve_each: loop
      fetch c into v_id, v_token_id, v_user_id, v_amount${model ? ', v_model' : ''};
      if v_done = 1 then leave reserve_each; end if;
      call relay_reserve_in_tx(v_id, v_token_id, v_user_id, v_amount, p_owner, p_now, ${model ? 'v_model, ' : ''}v_outcome);
      set v_outcomes = json_array_append(v_outcomes, '$', v_outcome);
    end loop;
    close c;
  end;
  commit;
  select v_outcomes as reserve_outcomes, v_charges as settle_charges;
end`;
}
