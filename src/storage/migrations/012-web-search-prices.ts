import type { Kysely } from 'kysely';

/**
 * Anthropic and OpenAI bill each web search their server-side search tool runs, on top of the tokens, and
 * those searches were served free. A price may now name `web_search` (per search; unset, searches stay
 * unbilled), and each log row records how many searches its request ran. Constant defaults: a metadata
 * change on every database (see 009).
 */
export function webSearchPricesMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('prices').addColumn('web_search', 'double precision').execute();
      await db.schema.alterTable('logs').addColumn('web_search_calls', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
    },
  };
}
