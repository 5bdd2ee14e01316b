import type { z } from 'zod';
import type { InvalidWireRequest } from '../../canonical/conversion.js';

/** `('messages[0]', ['content', 1])` → `messages[0].content[1]`, the way OpenAI names a `param`. */
function formatParamPath(prefix: string, path: readonly (string | number)[]): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name === '' ? key : `${name}.${key}`), prefix);
}

/** The first zod issue as a refusal naming the field at fault, under `prefix` (the path of the value parsed). */
export function toInvalidWireRequest(error: z.ZodError, prefix = ''): InvalidWireRequest {
  const issue = error.issues[0];
  const param = formatParamPath(prefix, issue?.path ?? []);
  return { invalid: true, param, message: `Invalid value for '${param === '' ? 'body' : param}': ${issue?.message ?? 'malformed'}` };
}
