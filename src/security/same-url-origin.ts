/**
 * Pure: whether two URLs reach the same origin — scheme, host and port as WHATWG URL parsing normalises them
 * (`HTTPS://API.example.com:443/v1` and `https://api.example.com/v2` do; `http://` and `https://` of one host,
 * or two ports, do not). Userinfo, path, query and fragment do not count. A URL that does not parse, or one
 * without a tuple origin (`data:`, `file:`, a scheme URL parsing leaves opaque), is the same only as itself:
 * an unknown is never taken for a match.
 */
export function sameUrlOrigin(first: string, second: string): boolean {
  if (first === second) return true;
  const firstOrigin = originOf(first);
  return firstOrigin !== undefined && firstOrigin === originOf(second);
}

function originOf(text: string): string | undefined {
  try {
    const { origin } = new URL(text);
    // Every opaque origin serialises as "null", and no two of them are the same origin.
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
