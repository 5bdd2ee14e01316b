/**
 * Gemini's `parameters` / `responseSchema` is an OpenAPI 3.0 Schema object whose `type` is an enum that
 * clients often write in upper case (`Type.OBJECT` in @google/genai is "OBJECT"). Other styles take JSON
 * Schema, where types are lower case. This lowers the `type` keywords and leaves everything else as is;
 * property names and values (`enum`, `default`, `example`) are never touched.
 */
const openApiTypes = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);
const schemaMaps = new Set(['properties', '$defs', 'definitions', 'patternProperties']);
const schemaLists = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const schemaValues = new Set(['items', 'additionalProperties', 'not']);

export function normalizeGeminiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    let normalized: unknown = value;
    if (key === 'type' && typeof value === 'string' && openApiTypes.has(value)) normalized = value.toLowerCase();
    else if (schemaMaps.has(key) && isRecord(value)) normalized = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, normalizeChild(child)]));
    else if (schemaLists.has(key) && Array.isArray(value)) normalized = value.map(normalizeChild);
    else if (schemaValues.has(key)) normalized = normalizeChild(value);
    Object.defineProperty(result, key, { value: normalized, enumerable: true, writable: true, configurable: true });
  }
  return result;
}

function normalizeChild(child: unknown): unknown {
  return isRecord(child) ? normalizeGeminiSchema(child) : child;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
