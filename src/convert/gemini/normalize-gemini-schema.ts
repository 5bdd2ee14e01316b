import { mapSubschemas } from '../shared/map-subschemas.js';
import { withNullType } from '../shared/with-null-type.js';

/**
 * Gemini's `parameters` / `responseSchema` is an OpenAPI 3.0 Schema object whose `type` is an enum that
 * clients often write in upper case (`Type.OBJECT` in @google/genai is "OBJECT"), whose `nullable: true`
 * lets a value be null, and whose int64 limits (`minItems`, `maxItems`, `minLength`, `maxLength`,
 * `minProperties`, `maxProperties`) @google/genai types as strings ("2"). Other styles take JSON Schema,
 * where types are lower case, null is a type of its own and limits are numbers. This lowers the `type`
 * keywords, turns `nullable: true` into a `"null"` type (OpenAI and Anthropic read no `nullable`: the
 * model was never told null is an answer, and a constrained decoder could not give it), turns those limits
 * written as whole-number strings into numbers, and leaves everything else as is; property names and
 * values (`enum`, `default`, `example`) are never touched.
 */
const openApiTypes = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);
const int64Limits = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

export function normalizeGeminiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // `nullable: false` is OpenAPI's default: it says nothing JSON Schema needs.
    if (key === 'nullable' && typeof value === 'boolean') continue;
    Object.defineProperty(result, key, { value: normalizedValue(key, value), enumerable: true, writable: true, configurable: true });
  }
  return schema.nullable === true ? withNullType(result) : result;
}

function normalizedValue(key: string, value: unknown): unknown {
  if (key === 'type' && typeof value === 'string' && openApiTypes.has(value)) return value.toLowerCase();
  if (int64Limits.has(key) && typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return mapSubschemas(key, value, normalizeGeminiSchema);
}
