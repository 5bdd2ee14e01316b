import type { SelectQueryBuilder, Simplify } from 'kysely';
import type { DatabaseSchema } from './database-schema.js';
import { offsetOf, type Page, type PageRequest } from './paging.js';

/**
 * One page of a filtered table: `rows` (`matching` with its columns selected and its order) limited to the
 * page, and the count of every row `matching` holds, in the envelope every list answers. The rows are read
 * first, then the count, as two statements.
 */
export async function pageOfQuery<Table extends keyof DatabaseSchema, Row>(
  matching: SelectQueryBuilder<DatabaseSchema, Table, object>,
  rows: SelectQueryBuilder<DatabaseSchema, Table, Row>,
  request: PageRequest,
): Promise<Page<Simplify<Row>>> {
  const items = await rows.limit(request.pageSize).offset(offsetOf(request)).execute();
  const { count } = await matching.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return { items, total: Number(count), page: request.page, page_size: request.pageSize };
}
