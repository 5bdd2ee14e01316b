/** `data:<mediaType>;base64,<data>` → its parts; undefined for any other URL (RFC 2397, base64 form only). */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  const header = url.slice(5, comma);
  if (comma < 0 || !header.endsWith(';base64')) return undefined;
  const mediaType = header.slice(0, -';base64'.length).split(';')[0] ?? '';
  return { mediaType: mediaType === '' ? 'application/octet-stream' : mediaType, data: url.slice(comma + 1) };
}
