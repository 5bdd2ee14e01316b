import type { z } from 'zod';
import { GatewayError } from '../../../errors/gateway-error.js';

/**
 * Validates a management body with zod and turns the first problems into one 400 that names the fields,
 * e.g. `Unknown field "colour"` or `base_url: Invalid url`.
 */
export function parseRequestBody<Schema extends z.ZodTypeAny>(schema: Schema, body: unknown): z.output<Schema> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0];
  const message = issues
    .slice(0, 5)
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `Unknown field "${[...issue.path, key].join('.')}"`).join('; ');
      return issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`;
    })
    .join('; ');
  const param = first === undefined ? undefined : first.code === 'unrecognized_keys' ? first.keys[0] : first.path.join('.');
  throw new GatewayError('invalid_request', message, param === undefined || param === '' ? {} : { param });
}
