import { z } from 'zod';

/** A group multiplies the price of every request made in it (the config file's `groups: {name: ratio}`). */
const ratio = z.number().nonnegative();

export const createGroupBodySchema = z.object({ name: z.string().min(1).max(64), ratio }).strict();

export const updateGroupBodySchema = z.object({ ratio }).strict();
