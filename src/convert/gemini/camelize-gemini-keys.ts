/**
 * Gemini's REST API reads proto JSON, which accepts `snake_case` field names as well as `lowerCamelCase`
 * (Google's own curl examples send `system_instruction`, `inline_data`, `mime_type`). This rewrites field
 * names to camelCase so one schema reads both, leaving user data untouched: function arguments and
 * results, and JSON schemas, whose property names belong to the caller.
 */
const opaqueFields = new Set(['args', 'response', 'parameters', 'parametersJsonSchema', 'responseSchema', 'responseJsonSchema', 'labels']);

export function camelizeGeminiKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelizeGeminiKeys);
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const camelKey = key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
    // Both spellings present: the camelCase one wins, as it is the documented form.
    if (camelKey !== key && Object.hasOwn(value, camelKey)) continue;
    // defineProperty: a `__proto__` key from JSON.parse stays a plain field, never the prototype setter.
    Object.defineProperty(result, camelKey, {
      value: opaqueFields.has(camelKey) ? child : camelizeGeminiKeys(child),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}
