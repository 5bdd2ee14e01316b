/**
 * Pure: a schema node that also admits `null` — OpenAPI's `nullable: true` in JSON Schema terms: `"null"`
 * added to its type (a name or a list), or `anyOf` with `{type: "null"}` when the node names no type. An
 * `enum` gets `null` too: a client that marks an enum nullable means null to be an answer.
 */
export function withNullType(node: Record<string, unknown>): Record<string, unknown> {
  const { type, enum: values } = node;
  const admitting = Array.isArray(values) && !values.includes(null) ? { ...node, enum: [...values, null] } : node;
  if (typeof type === 'string') return { ...admitting, type: type === 'null' ? type : [type, 'null'] };
  if (Array.isArray(type)) return { ...admitting, type: type.includes('null') ? type : [...type, 'null'] };
  return { anyOf: [admitting, { type: 'null' }] };
}
