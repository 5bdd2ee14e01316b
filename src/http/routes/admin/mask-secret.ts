/** What an operator sees of an upstream key: its first and last four characters (`sk-a…xyz1`), or nothing for short keys. */
export function maskSecret(secret: string): string {
  // Below 16 characters, eight visible characters would give too much of the key away.
  if (secret.length < 16) return '…';
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}
