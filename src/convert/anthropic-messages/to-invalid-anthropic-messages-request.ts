import type { z } from 'zod';
import type { InvalidWireRequest } from '../../canonical/conversion.js';

/** The first zod issue as a refusal, its field named the way Anthropic does (`messages.0.content.1.source`). */
export function toInvalidAnthropicMessagesRequest(error: z.ZodError, prefix: readonly (string | number)[] = []): InvalidWireRequest {
  const issue = error.issues[0];
  const param = [...prefix, ...(issue?.path ?? [])].join('.');
  return { invalid: true, param, message: `${param === '' ? 'body' : param}: ${issue?.message ?? 'malformed'}` };
}
