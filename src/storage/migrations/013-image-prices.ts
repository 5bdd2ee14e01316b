import type { Kysely } from 'kysely';

/**
 * Vendors bill image tokens apart from text: Gemini's image models an output image at 12× their text output
 * (gemini-2.5-flash-image $30 against $2.50 per million), gpt-image models an input image above input text,
 * and every token was billed at the one input or output price. A price may now name `image_input` and
 * `image_output` (unset, images keep the input and output prices, as before), and each log row records how
 * many of its tokens were images. Constant defaults: a metadata change on every database (see 009).
 */
export function imagePricesMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('prices').addColumn('image_input', 'double precision').execute();
      await db.schema.alterTable('prices').addColumn('image_output', 'double precision').execute();
      await db.schema.alterTable('logs').addColumn('image_input_tokens', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('logs').addColumn('image_output_tokens', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
    },
  };
}
