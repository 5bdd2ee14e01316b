import { sql } from 'kysely';
import type { Database, DialectName } from '../../src/storage/database-schema.js';

/** A table's indexes besides its primary key, by name, each with its columns in index order (all three databases). */
export async function listTableIndexes(db: Database, dialect: DialectName, table: string): Promise<Record<string, string[]>> {
  const query =
    dialect === 'sqlite'
      ? sql<{ index_name: string; column_name: string }>`select m.name as index_name, i.name as column_name from sqlite_master m, pragma_index_info(m.name) i
          where m.type = 'index' and m.tbl_name = ${table} and m.name not like 'sqlite_autoindex%' order by m.name, i.seqno`
      : dialect === 'postgres'
        ? sql<{ index_name: string; column_name: string }>`select i.relname as index_name, a.attname as column_name
            from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
            cross join lateral unnest(x.indkey) with ordinality as k(attnum, position)
            join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
            where t.relname = ${table} and not x.indisprimary order by i.relname, k.position`
        : sql<{ index_name: string; column_name: string }>`select index_name as index_name, column_name as column_name from information_schema.statistics
            where table_schema = database() and table_name = ${table} and index_name <> 'PRIMARY' order by index_name, seq_in_index`;
  const indexes: Record<string, string[]> = {};
  for (const row of (await query.execute(db)).rows) (indexes[row.index_name] ??= []).push(row.column_name);
  return indexes;
}
