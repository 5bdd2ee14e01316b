/**
 * The text with every occurrence of `secret` (a channel's upstream key) replaced by `***`. Upstreams
 * sometimes quote the key they refused, and their error text reaches clients and the admin API, which
 * must never show a channel key. Keys shorter than 8 characters are not searched for: too likely to
 * match ordinary text, and too short to be real credentials.
 */
export function redactSecret(text: string, secret: string): string {
  if (secret.length < 8 || !text.includes(secret)) return text;
  return text.split(secret).join('***');
}
