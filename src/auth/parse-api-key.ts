/**
 * `sk-<key>` or `sk-<key>-<channelId>` (new-api's form: an admin may pin a request to one channel).
 * Returns undefined for a value that cannot be a key at all.
 */
export interface ParsedApiKey {
  /** The key as it is stored (hashed): always with the `sk-` prefix. */
  key: string;
  channelId: number | undefined;
}

export function parseApiKey(raw: string): ParsedApiKey | undefined {
  const trimmed = raw.trim();
  if (trimmed === '' || /\s/.test(trimmed)) return undefined;
  const body = trimmed.startsWith('sk-') ? trimmed.slice(3) : trimmed;
  const parts = body.split('-');
  if (parts.length > 2 || parts[0] === '' || parts[0] === undefined) return undefined;
  const pin = parts[1];
  if (pin === undefined) return { key: `sk-${parts[0]}`, channelId: undefined };
  if (!/^\d+$/.test(pin)) return undefined;
  return { key: `sk-${parts[0]}`, channelId: Number(pin) };
}

/** The Bearer value of an Authorization header, or undefined when the header is absent or not Bearer. */
export function bearerValue(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // The usual form, `Bearer <key>` with nothing around it, is read without the regular expression (same answer).
  if (header.startsWith('Bearer ') && header.length > 7 && !isBlank(header.charCodeAt(7)) && !isBlank(header.charCodeAt(header.length - 1))) {
    return header.slice(7);
  }
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim();
}

/** Whether trim() or a regular expression's \s would take this character (header values are Latin-1). */
function isBlank(code: number): boolean {
  return code <= 0x20 || code === 0xa0 || code >= 0x1680;
}
