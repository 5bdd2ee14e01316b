import type { Kysely } from 'kysely';

/**
 * OpenAI bills a request that asks for Priority processing (`service_tier: "priority"`) at its Priority
 * rates, about 1.7–2× the standard ones, and the gateway relayed the field while charging the standard
 * price. A price may now name the tier's multiplier (`prices.priority`); without it the tier is not sent
 * upstream. A nullable column: a metadata change on every database (see 009).
 */
export function priorityTierPricesMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('prices').addColumn('priority', 'double precision').execute();
    },
  };
}
