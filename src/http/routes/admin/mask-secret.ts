/** Keys this short show nothing: even a few characters would be a real part of the key. */
const shortestShownKey = 12;
/** The most shown of any key: its first and last four characters. */
const mostShownCharacters = 8;

/**
 * What an operator sees of an upstream key: enough of its ends to tell keys apart, never more than a
 * quarter of it — the first and last four characters from 32 characters on (`sk-a…xyz1`), fewer below
 * (`sk-…yz` at 20 characters), nothing under 12. Eight characters of a 16-character key were half of it.
 */
export function maskSecret(secret: string): string {
  if (secret.length < shortestShownKey) return '…';
  const shown = Math.min(mostShownCharacters, Math.floor(secret.length / 4));
  const head = Math.ceil(shown / 2);
  return `${secret.slice(0, head)}…${secret.slice(secret.length - (shown - head))}`;
}
