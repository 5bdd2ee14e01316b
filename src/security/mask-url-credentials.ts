/**
 * A URL's userinfo (`scheme://user:password@host`), wherever it sits in a text: up to the last `@` before
 * the authority ends (`/`, `?`, `#`, whitespace), as WHATWG URL parsing reads it.
 */
const urlUserinfo = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)@/gi;

/**
 * Pure: `text` with the user and password of every URL in it replaced by `***` (`https://***:***@host/v1`).
 * A channel's `base_url` may carry the credentials of a proxy or a self-hosted server, and it is shown by
 * the admin API and quoted in error messages, which must never show a secret in clear.
 */
export function maskUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(urlUserinfo, (_match, scheme: string, userinfo: string) => `${scheme}${userinfo.includes(':') ? '***:***' : '***'}@`);
}
