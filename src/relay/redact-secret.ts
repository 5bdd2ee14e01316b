/**
 * The text with every occurrence of `secret` (a channel's upstream key) replaced by `***`. Upstreams
 * sometimes quote the key they refused, and their error text reaches clients and the admin API, which
 * must never show a channel key. A key of several `|`-joined parts (Kling `AccessKey|SecretKey`, Tencent
 * VOD `SubAppId|SecretId|SecretKey[|Region]`) is searched for whole and part by part: an upstream quotes
 * the one part it was sent (the AccessKey a JWT names, the SecretId of a signature), never the joined key.
 * Keys and parts shorter than 8 characters are not searched for: too likely to match ordinary text, and
 * too short to be real credentials. Nor are parts that are ids or places, not secrets, and would mask
 * what makes the message useful: digits alone (VOD's SubAppId) and lowercase words joined by hyphens
 * (a region, `ap-guangzhou`).
 */
export function redactSecret(text: string, secret: string): string {
  let redacted = text;
  for (const part of secretParts(secret)) {
    if (redacted.includes(part)) redacted = redacted.split(part).join('***');
  }
  return redacted;
}

const shortestSecret = 8;

/** The whole key, then each secret part of a `|`-joined one, longest first (a part inside another is masked with it). */
function secretParts(secret: string): string[] {
  const parts = secret.includes('|') ? secret.split('|').map((part) => part.trim()).filter((part) => !isIdOrPlace(part)) : [];
  return [...new Set([secret, ...parts])].filter((part) => part.length >= shortestSecret).sort((left, right) => right.length - left.length);
}

function isIdOrPlace(part: string): boolean {
  return /^\d+$/.test(part) || /^[a-z]+(?:-[a-z]+)+(?:-\d+)?$/.test(part);
}
