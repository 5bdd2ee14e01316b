import { CompiledQuery, type Kysely } from 'kysely';
import type { DialectName } from '../../src/storage/database-schema.js';

/**
 * Runs what an operator's line gives after `marker` (src/storage/operator-statement.ts: a statement with
 * `?` placeholders, ` with parameters `, the parameters as JSON) as the operator would, on `dialect`
 * (PostgreSQL numbers its placeholders).
 */
export async function runOperatorStatement(db: Kysely<any>, dialect: DialectName, line: string, marker: string): Promise<void> {
  const match = / with parameters (\[.*\])$/.exec(line.trimEnd());
  if (match === null) throw new Error(`no parameters in: ${line}`);
  const statement = line.slice(line.indexOf(marker) + marker.length, match.index).trim();
  let placeholder = 0;
  const sql = dialect === 'postgres' ? statement.replace(/\?/g, () => `$${(placeholder += 1)}`) : statement;
  await db.executeQuery(CompiledQuery.raw(sql, JSON.parse(match[1]!) as unknown[]));
}
