import type { Kysely } from 'kysely';

/**
 * The retention sweep keeps a settled reservation while a task still needs its figure (a task whose own
 * `quota` was never recorded: a crash between the upstream's acceptance and the charge's record, and not
 * yet refunded); it asks by the reservation's id, which is the task's `request_id`. Indexed so the hourly
 * sweep probes the tasks by key instead of scanning them for every reservation it deletes.
 */
export function tasksRequestIdMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('tasks_request_id').on('tasks').column('request_id').execute();
    },
  };
}
