import { sql, type Kysely } from 'kysely';

/**
 * Marks the tokens `/pg/chat/completions` made for itself (`purpose = 'playground'`), so the playground
 * never bills through an ordinary token that merely has the name `playground`. Every other token is an
 * API key (`api`). The playground used to create its token with fixed settings, so a token named
 * `playground` that still has exactly those settings (unlimited, no group, no model limits, no expiry, no
 * rate limits) is taken to be one and marked: an existing database keeps its playground tokens, their
 * history and an administrator's disable of them. A token that differs is left an API key.
 */
export function playgroundTokenPurposeMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tokens')
        .addColumn('purpose', 'varchar(16)', (column) => column.notNull().defaultTo('api'))
        .execute();
      await markPlaygroundTokens(db);
    },
  };
}

/** The tokens the playground of the previous versions created: named `playground`, with its fixed settings. */
export async function markPlaygroundTokens(db: Kysely<unknown>): Promise<void> {
  await sql`update tokens set purpose = 'playground'
    where name = 'playground' and unlimited_quota = 1 and group_name is null and model_limits is null
      and expires_at = 0 and rate_limit_rpm is null and rate_limit_tpm is null`.execute(db);
}
