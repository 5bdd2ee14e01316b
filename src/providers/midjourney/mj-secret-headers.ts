/** The header a Midjourney-proxy reads its secret from (protocols.md §1.1); a `Bearer ` prefix in the key is dropped. */
export function mjSecretHeaders(key: string): Record<string, string> {
  return { 'mj-api-secret': key.replace(/^Bearer\s+/i, ''), accept: 'application/json' };
}
