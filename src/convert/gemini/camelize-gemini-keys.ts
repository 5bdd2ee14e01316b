/**
 * Gemini's REST API reads proto JSON, which accepts `snake_case` field names as well as `lowerCamelCase`
 * (Google's own curl examples send `system_instruction`, `inline_data`, `mime_type`). This rewrites field
 * names to camelCase so one schema reads both, leaving user data untouched: function arguments and
 * results, and JSON schemas, whose property names belong to the caller.
 */
const opaqueFields = new Set(['args', 'response', 'parameters', 'parametersJsonSchema', 'responseSchema', 'responseJsonSchema', 'labels']);

/**
 * One object names a field under two spellings (`generationConfig` and `generation_config`): the gateway
 * would read one and the upstream, given the client's bytes, might read the other, so the body has no
 * one meaning. Thrown by `camelizeGeminiKeys`; `parseGeminiRequest` and `camelizeGeminiBody` (the
 * `:countTokens` and embedding actions) turn it into a refusal.
 */
export class GeminiSpellingConflict extends Error {
  constructor(readonly spellings: readonly [string, string], readonly field: string) {
    super(`"${spellings[0]}" and "${spellings[1]}" name the same field ${field}; send it once.`);
    this.name = 'GeminiSpellingConflict';
  }
}

const camelize = (key: string): string => key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

export function camelizeGeminiKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelizeGeminiKeys);
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const camelKey = camelize(key);
    // Only a key that changes can meet another spelling: one written as its camelCase form (before or
    // after it), or an earlier one that camelized to the same name.
    if (camelKey !== key && (Object.hasOwn(value, camelKey) || Object.hasOwn(result, camelKey))) {
      const other = Object.keys(value).find((candidate) => candidate !== key && camelize(candidate) === camelKey) ?? camelKey;
      throw new GeminiSpellingConflict([other, key], camelKey);
    }
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
