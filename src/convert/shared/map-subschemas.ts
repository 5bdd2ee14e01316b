import { isRecord } from './is-record.js';

// The JSON Schema keywords whose values are subschemas: a map of them, a list of them, or one.
const schemaMaps = new Set(['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas', 'dependencies']);
const schemaLists = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const schemaValues = new Set(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);

/**
 * Pure: the value of schema keyword `key` with every subschema it holds passed through `map`, or `value`
 * untouched when `key` holds none (property names, `enum`, `const`, `default`, `examples` are never
 * walked). `items` may also be a list (draft-04/07 tuples); a `dependencies` entry that lists property
 * names is left as it is. The one walk the schema rewriters share.
 */
export function mapSubschemas(key: string, value: unknown, map: (schema: Record<string, unknown>) => unknown): unknown {
  const child = (schema: unknown) => (isRecord(schema) ? map(schema) : schema);
  if (schemaMaps.has(key) && isRecord(value)) return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, child(schema)]));
  if ((schemaLists.has(key) || key === 'items') && Array.isArray(value)) return value.map(child);
  if (schemaValues.has(key)) return child(value);
  return value;
}
