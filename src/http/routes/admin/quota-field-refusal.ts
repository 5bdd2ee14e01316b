import { z } from 'zod';

/**
 * Update bodies refuse `quota`: overwriting a balance loses whatever was spent between reading and writing it.
 * Balances change only through the atomic `POST …/:id/quota` with a delta.
 */
export function quotaFieldRefusal(resource: 'users' | 'tokens') {
  return z.never({ message: `change the balance with POST /api/admin/${resource}/:id/quota and {"delta": <integer>}, not by overwriting it` }).optional();
}
