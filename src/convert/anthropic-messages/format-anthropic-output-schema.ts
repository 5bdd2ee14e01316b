import type { Converted } from '../../canonical/conversion.js';
import { isRecord } from '../shared/is-record.js';
import { mapSubschemas } from '../shared/map-subschemas.js';
import { withNullType } from '../shared/with-null-type.js';

/** Constraints Anthropic's structured outputs refuse with a 400 (docs: structured outputs, "JSON Schema limitations"). */
const refusedConstraints = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties']);
/** The string formats it takes. */
const acceptedFormats = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/**
 * Pure: a JSON Schema as other styles send it → one Anthropic's `output_config.format` accepts, as its own
 * SDKs prepare one (docs: structured outputs, "How SDK transformation works"). Anthropic takes a subset of
 * JSON Schema and refuses the rest with a 400, where OpenAI and Gemini take the schema as written:
 * - every object gets `additionalProperties: false` (Anthropic requires it; any other value is replaced,
 *   with a warning);
 * - numeric, string-length, array-size and property-count constraints, a `minItems` other than 0 or 1 and
 *   string formats it does not know are taken out and written into the node's `description`
 *   (`{minimum: 1}`), where the model still reads them;
 * - `oneOf` becomes `anyOf` (the subset has no `oneOf`);
 * - OpenAPI's `nullable: true` becomes a `"null"` type, and `$schema` is dropped.
 * Only schema keywords are walked; property names, `enum`, `const`, `default` and `examples` are kept.
 */
export function formatAnthropicOutputSchema(schema: unknown): Converted<unknown> {
  const moved = new Set<string>();
  const replaced = { additionalProperties: false };
  const value = rewrite(schema, moved, replaced);
  const warnings: string[] = [];
  if (moved.size > 0) warnings.push(`output schema: ${[...moved].join(', ')} moved into descriptions (Anthropic refuses them)`);
  if (replaced.additionalProperties) warnings.push('output schema: additionalProperties set to false on every object (Anthropic requires it)');
  return { value, warnings };
}

function rewrite(schema: unknown, moved: Set<string>, replaced: { additionalProperties: boolean }): unknown {
  if (!isRecord(schema)) return schema;
  const result: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === 'nullable') continue;
    const refused = refusedConstraints.has(key) || (key === 'minItems' && value !== 0 && value !== 1) || (key === 'format' && typeof value === 'string' && !acceptedFormats.has(value));
    if (refused) {
      moved.add(key);
      notes.push(`${key}: ${JSON.stringify(value)}`);
      continue;
    }
    const name = key === 'oneOf' && schema.anyOf === undefined ? 'anyOf' : key;
    // defineProperty: a key named `__proto__` stays an own property.
    Object.defineProperty(result, name, { value: mapSubschemas(key, value, (child) => rewrite(child, moved, replaced)), enumerable: true, writable: true, configurable: true });
  }
  if (isObjectNode(schema)) {
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) replaced.additionalProperties = true;
    result.additionalProperties = false;
  }
  if (notes.length > 0) {
    const constraints = `{${notes.join(', ')}}`;
    result.description = typeof result.description === 'string' && result.description !== '' ? `${result.description}\n\n${constraints}` : constraints;
  }
  return schema.nullable === true ? withNullType(result) : result;
}

/** An object type, or a node without a type that describes an object's members (a map: `additionalProperties` alone). */
function isObjectNode(schema: Record<string, unknown>): boolean {
  const { type } = schema;
  if (type === undefined) return isRecord(schema.properties) || schema.additionalProperties !== undefined || isRecord(schema.patternProperties);
  return type === 'object' || (Array.isArray(type) && type.includes('object'));
}
