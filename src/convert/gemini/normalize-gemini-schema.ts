import { mapSubschemas } from '../shared/map-subschemas.js';

/**
 * Gemini's `parameters` / `responseSchema` is an OpenAPI 3.0 Schema object whose `type` is an enum that
 * clients often write in upper case (`Type.OBJECT` in @google/genai is "OBJECT"), and whose int64 limits
 * (`minItems`, `maxItems`, `minLength`, `maxLength`, `minProperties`, `maxProperties`) @google/genai types
 * as strings ("2"). Other styles take JSON Schema, where types are lower case and limits are numbers. This
 * lowers the `type` keywords, turns those limits written as whole-number strings into numbers, and leaves
 * everything else as is; property names and values (`enum`, `default`, `example`) are never touched.
 */
const openApiTypes = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);
const int64Limits = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

export function normalizeGeminiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    Object.defineProperty(result, key, { value: normalizedValue(key, value), enumerable: true, writable: true, configurable: true });
  }
  return result;
}

function normalizedValue(key: string, value: unknown): unknown {
  if (key === 'type' && typeof value === 'string' && openApiTypes.has(value)) return value.toLowerCase();
  if (int64Limits.has(key) && typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return mapSubschemas(key, value, normalizeGeminiSchema);
}
