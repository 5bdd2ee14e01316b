import { isRecord } from '../shared/is-record.js';
import { mapSubschemas } from '../shared/map-subschemas.js';
import { withNullType } from '../shared/with-null-type.js';

/**
 * Pure: a JSON Schema as other styles send it → the JSON Schema Gemini reads in `responseJsonSchema` and
 * `parametersJsonSchema` (ai.google.dev, structured output: `$defs`, `$ref`, `type` and type lists,
 * `anyOf`, `properties`, `items`, …). Three things differ in what clients commonly send — the openai SDK's
 * `zodResponseFormat` writes all three:
 * - draft-07 `definitions` → `$defs`, and `#/definitions/…` refs → `#/$defs/…`;
 * - OpenAPI's `nullable: true` → `"null"` added to the type (or `anyOf` with `{type: "null"}` when the
 *   node names no type);
 * - `$schema` is dropped.
 * Only schema keywords are walked; property names, `enum`, `const`, `default` and `examples` are kept.
 */
export function formatGeminiJsonSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
      result.$ref = `#/$defs/${value.slice('#/definitions/'.length)}`;
      continue;
    }
    const mapped = mapSubschemas(key, value, formatGeminiJsonSchema);
    if ((key === 'definitions' || key === '$defs') && isRecord(mapped)) {
      result.$defs = { ...(isRecord(result.$defs) ? result.$defs : {}), ...mapped };
      continue;
    }
    // defineProperty: a key named `__proto__` stays an own property.
    Object.defineProperty(result, key, { value: mapped, enumerable: true, writable: true, configurable: true });
  }
  return schema.nullable === true ? withNullType(result) : result;
}
