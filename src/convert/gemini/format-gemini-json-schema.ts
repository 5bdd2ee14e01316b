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
const schemaMaps = new Set(['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas']);
const schemaLists = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const schemaValues = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);

export function formatGeminiJsonSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
      result.$ref = `#/$defs/${value.slice('#/definitions/'.length)}`;
    } else if (schemaMaps.has(key) && isRecord(value)) {
      const target = key === 'definitions' ? '$defs' : key;
      const mapped = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, formatGeminiJsonSchema(child)]));
      result[target] = isRecord(result[target]) ? { ...(result[target] as Record<string, unknown>), ...mapped } : mapped;
    } else if (schemaLists.has(key) && Array.isArray(value)) {
      result[key] = value.map(formatGeminiJsonSchema);
    } else if (schemaValues.has(key)) {
      result[key] = formatGeminiJsonSchema(value);
    } else {
      // defineProperty: a key named `__proto__` stays an own property.
      Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return schema.nullable === true ? withNull(result) : result;
}

function withNull(node: Record<string, unknown>): Record<string, unknown> {
  const { type } = node;
  if (typeof type === 'string') return { ...node, type: type === 'null' ? type : [type, 'null'] };
  if (Array.isArray(type)) return { ...node, type: type.includes('null') ? type : [...type, 'null'] };
  return { anyOf: [node, { type: 'null' }] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
