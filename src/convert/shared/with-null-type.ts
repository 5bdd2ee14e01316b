/**
 * Pure: a schema node that also admits `null` — OpenAPI's `nullable: true` in JSON Schema terms: `"null"`
 * added to its type (a name or a list), or `anyOf` with `{type: "null"}` when the node names no type.
 */
export function withNullType(node: Record<string, unknown>): Record<string, unknown> {
  const { type } = node;
  if (typeof type === 'string') return { ...node, type: type === 'null' ? type : [type, 'null'] };
  if (Array.isArray(type)) return { ...node, type: type.includes('null') ? type : [...type, 'null'] };
  return { anyOf: [node, { type: 'null' }] };
}
