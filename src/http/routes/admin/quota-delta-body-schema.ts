import { z } from 'zod';

/** An admin balance adjustment: positive tops up, negative takes back. */
export const quotaDeltaBodySchema = z
  .object({
    delta: z
      .number()
      .int()
      .refine((delta) => Number.isSafeInteger(delta) && delta !== 0, `must be a non-zero integer between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`),
  })
  .strict();
