/**
 * The bytes sent upstream. Passthrough sends the client's exact bytes; only a model mapping or our
 * request for streamed usage makes us re-serialize (every other field, known or not, is kept as sent).
 */
export function buildUpstreamBody(
  rawBody: Buffer | undefined,
  body: Record<string, unknown>,
  upstreamModel: string | undefined,
  askForStreamUsage: boolean,
): string | Buffer {
  const modelChanges = upstreamModel !== undefined && body.model !== upstreamModel;
  if (!modelChanges && !askForStreamUsage && rawBody !== undefined) return rawBody;
  const rewritten: Record<string, unknown> = { ...body };
  if (modelChanges) rewritten.model = upstreamModel;
  if (askForStreamUsage) {
    const options = body.stream_options !== null && typeof body.stream_options === 'object' ? body.stream_options : {};
    rewritten.stream_options = { ...options, include_usage: true };
  }
  return JSON.stringify(rewritten);
}
