/** A `data:<media type>;base64,<data>` URL split into its parts; undefined for any other URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*);base64,/i.exec(url);
  if (match === null) return undefined;
  return { mediaType: match[1] === '' ? 'application/octet-stream' : (match[1] ?? ''), data: url.slice(match[0].length) };
}
