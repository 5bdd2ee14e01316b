import { z } from 'zod';
import { priceValue } from '../../../config/config-file-schema.js';

/** A group multiplies the price of every request made in it (the config file's `groups: {name: ratio}`). */
const ratio = priceValue;

export const createGroupBodySchema = z.object({ name: z.string().min(1).max(64), ratio }).strict();

export const updateGroupBodySchema = z.object({ ratio }).strict();
