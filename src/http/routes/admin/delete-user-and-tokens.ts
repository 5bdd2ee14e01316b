import type { Database } from '../../../storage/database-schema.js';

/**
 * Deletes a user with its tokens in one transaction, so no orphaned key is left behind.
 * Belongs in UsersRepository (storage is not this module's to edit); answers whether the user existed.
 */
export async function deleteUserAndTokens(db: Database, userId: number): Promise<boolean> {
  return db.transaction().execute(async (transaction) => {
    await transaction.deleteFrom('tokens').where('user_id', '=', userId).execute();
    const result = await transaction.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}
