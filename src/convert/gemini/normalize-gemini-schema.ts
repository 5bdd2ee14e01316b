import { mapSubschemas } from '../shared/map-subschemas.js';

/**
 * Gemini's `parameters` / `responseSchema` is an OpenAPI 3.0 Schema object whose `type` is an enum that
 * clients often write in upper case (`Type.OBJECT` in @google/genai is "OBJECT"). Other styles take JSON
 * Schema, where types are lower case. This lowers the `type` keywords and leaves everything else as is;
 * property names and values (`enum`, `default`, `example`) are never touched.
 */
const openApiTypes = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);

export function normalizeGeminiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    const normalized = key === 'type' && typeof value === 'string' && openApiTypes.has(value) ? value.toLowerCase() : mapSubschemas(key, value, normalizeGeminiSchema);
    Object.defineProperty(result, key, { value: normalized, enumerable: true, writable: true, configurable: true });
  }
  return result;
}
