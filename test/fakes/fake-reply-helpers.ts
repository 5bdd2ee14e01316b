/** Deterministic pieces of a fake answer, the same for every vendor's fake. */

/** The reply cut to `limit` words (one word ≈ one token here), keeping the original spacing. */
export function truncateToWords(reply: string, limit: unknown): { value: string; truncated: boolean; tokens: number } {
  const pieces = reply.match(/\s*\S+/g) ?? [];
  if (typeof limit !== 'number' || limit >= pieces.length) return { value: reply, truncated: false, tokens: pieces.length };
  return { value: pieces.slice(0, Math.max(0, limit)).join(''), truncated: true, tokens: Math.max(0, limit) };
}

/** Splits text into at most `count` non-empty pieces of near-equal length, never inside a code point. */
export function splitEvenly(text: string, count: number): string[] {
  const characters = Array.from(text);
  const parts = Math.max(1, Math.min(count, characters.length));
  const pieces: string[] = [];
  for (let part = 0; part < parts; part++) {
    const piece = characters.slice(Math.floor((part * characters.length) / parts), Math.floor(((part + 1) * characters.length) / parts)).join('');
    if (piece !== '') pieces.push(piece);
  }
  return pieces;
}

/**
 * Arguments fitting a JSON schema's required (else all) properties: {"location":"Paris"} for a weather
 * tool. Types are read case-insensitively, as Gemini writes them upper case (`STRING`, `NUMBER`).
 */
export function sampleArguments(parameters: Record<string, any> | undefined): Record<string, unknown> {
  const properties: Record<string, any> = parameters?.properties ?? {};
  const names: string[] = Array.isArray(parameters?.required) && parameters.required.length > 0 ? parameters.required : Object.keys(properties);
  const sampleByType: Record<string, unknown> = { number: 1, integer: 1, boolean: true, array: [], object: {} };
  return Object.fromEntries(names.map((name) => {
    const type = typeof properties[name]?.type === 'string' ? properties[name].type.toLowerCase() : undefined;
    return [name, properties[name]?.enum?.[0] ?? (type === undefined ? undefined : sampleByType[type]) ?? 'Paris'];
  }));
}
