/**
 * Pure: whether two base URLs send requests to the same place — the same origin (scheme, host and port as
 * WHATWG URL parsing normalises them) and the same path and query. `HTTPS://API.example.com:443/v1/` and
 * `https://api.example.com/v1` are one destination; another scheme, host, port, path or query is another,
 * because a shared host may tell its tenants apart by path (`/accounts/{id}/...`). Userinfo and fragment are
 * never sent and do not count; trailing slashes of the path do not either. A URL that does not parse, or one
 * without a tuple origin (`data:`, `file:`, a scheme URL parsing leaves opaque), is the same only as itself:
 * an unknown is never taken for a match.
 */
export function sameUrlDestination(first: string, second: string): boolean {
  if (first === second) return true;
  const firstDestination = destinationOf(first);
  return firstDestination !== undefined && firstDestination === destinationOf(second);
}

function destinationOf(text: string): string | undefined {
  try {
    const { origin, pathname, search } = new URL(text);
    // Every opaque origin serialises as "null", and no two of them are the same origin.
    return origin === 'null' ? undefined : `${origin}${pathname.replace(/\/+$/, '')}${search}`;
  } catch {
    return undefined;
  }
}
