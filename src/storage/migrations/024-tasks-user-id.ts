import type { Kysely } from 'kysely';

/**
 * A user's own tasks (`GET /api/task/self`), newest first: `where user_id = ? order by id desc`. Without
 * an index every page read scanned the whole table, every user's tasks; with (user_id, id) the page is
 * read from the index in order, on SQLite, PostgreSQL and MySQL alike.
 */
export function tasksUserIdMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('tasks_user_id').on('tasks').columns(['user_id', 'id']).execute();
    },
  };
}
