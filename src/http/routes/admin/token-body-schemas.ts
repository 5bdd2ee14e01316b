import { z } from 'zod';
import { expiresAtSchema, quotaAmountSchema, rateLimitSchema } from '../../../config/config-file-schema.js';
import { largestRowId } from '../../../storage/largest-row-id.js';
import { quotaFieldRefusal } from './quota-field-refusal.js';

/** The config file's token fields, with the owner as `user_id` or `user` (a username). */
const tokenFields = {
  name: z.string().min(1).max(128),
  user_id: z.number().int().positive().max(largestRowId),
  user: z.string().min(1),
  /** null = the owner's group */
  group: z.string().min(1).max(64).nullable(),
  unlimited_quota: z.boolean(),
  /** null = every model of the group */
  model_limits: z.array(z.string().min(1)).nullable(),
  /** unix seconds; 0 = never */
  expires_at: expiresAtSchema,
  rate_limit: rateLimitSchema,
  enabled: z.boolean(),
};

const oneOwnerForm = (body: { user_id?: number | undefined; user?: string | undefined }) => body.user_id === undefined || body.user === undefined;
const oneOwnerFormMessage = { message: 'send `user_id` or `user`, not both', path: ['user'] };

export const createTokenBodySchema = z
  .object({
    name: tokenFields.name,
    user_id: tokenFields.user_id.optional(),
    user: tokenFields.user.optional(),
    group: tokenFields.group.optional(),
    quota: quotaAmountSchema.optional(),
    unlimited_quota: tokenFields.unlimited_quota.optional(),
    model_limits: tokenFields.model_limits.optional(),
    expires_at: tokenFields.expires_at.default(0),
    rate_limit: tokenFields.rate_limit.default({}),
    enabled: tokenFields.enabled.default(true),
  })
  .strict()
  .refine(oneOwnerForm, oneOwnerFormMessage);

export const updateTokenBodySchema = z
  .object({ ...tokenFields, quota: quotaFieldRefusal('tokens') })
  .partial()
  .strict()
  .refine(oneOwnerForm, oneOwnerFormMessage);

export type CreateTokenBody = z.output<typeof createTokenBodySchema>;
export type UpdateTokenBody = z.output<typeof updateTokenBodySchema>;
