import type { Kysely } from 'kysely';

/**
 * OpenAI bills audio tokens of its audio and realtime models at several times their text rate (and Gemini
 * its audio input above text), and every token was billed at the one input or output price. A price may
 * now name `audio_input` and `audio_output` (unset, audio keeps the input and output prices, as before),
 * and each log row records how many of its tokens were audio, so a charge can be recomputed from its row.
 * Constant defaults: a metadata change on every database (see 009).
 */
export function audioPricesMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('prices').addColumn('audio_input', 'double precision').execute();
      await db.schema.alterTable('prices').addColumn('audio_output', 'double precision').execute();
      await db.schema.alterTable('logs').addColumn('audio_input_tokens', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('logs').addColumn('audio_output_tokens', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
    },
  };
}
