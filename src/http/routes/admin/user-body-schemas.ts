import { z } from 'zod';
import { quotaAmountSchema } from '../../../config/config-file-schema.js';
import { quotaFieldRefusal } from './quota-field-refusal.js';

/** The config file's user fields; `unlimited_quota` lets an update switch a wallet between limited and unlimited. */
const userFields = {
  username: z.string().min(1).max(64),
  password: z.string().min(8).max(128),
  role: z.enum(['root', 'admin', 'user']),
  group: z.string().min(1).max(64),
  unlimited_quota: z.boolean(),
  enabled: z.boolean(),
};

export const createUserBodySchema = z
  .object({
    username: userFields.username,
    password: userFields.password.optional(),
    role: userFields.role.default('user'),
    group: userFields.group.default('default'),
    /** Starting balance; a user created without one is unlimited (as in the config file). */
    quota: quotaAmountSchema.optional(),
    unlimited_quota: userFields.unlimited_quota.optional(),
    enabled: userFields.enabled.default(true),
  })
  .strict();

export const updateUserBodySchema = z
  .object({ ...userFields, quota: quotaFieldRefusal('users') })
  .partial()
  .strict();
