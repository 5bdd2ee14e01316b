/**
 * Vertex AI stamps responses with `createTime` (RFC 3339); the Gemini API sends no time at all. Unix
 * seconds, or 0 when unknown: converters have no clock, and the caller may stamp its own.
 */
export function readGeminiCreateTime(createTime: string | undefined): number {
  if (createTime === undefined) return 0;
  const milliseconds = Date.parse(createTime);
  return Number.isNaN(milliseconds) ? 0 : Math.floor(milliseconds / 1000);
}
