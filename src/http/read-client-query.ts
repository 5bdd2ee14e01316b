/** The client's query (`?limit=…&include[]=…`) as it sent it, `''` for none: a relayed upstream reads it. */
export function readClientQuery(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at);
}
