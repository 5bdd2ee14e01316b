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
  // Object.assign, not a spread: V8 (Node 20) makes adding keys to a `{ ...body }` clone cost µs.
  const rewritten: Record<string, unknown> = Object.assign({}, body);
  if (modelChanges) rewritten.model = upstreamModel;
  if (askForStreamUsage) {
    const options = body.stream_options !== null && typeof body.stream_options === 'object' ? body.stream_options : {};
    rewritten.stream_options = Object.assign({}, options, { include_usage: true });
  }
  return JSON.stringify(rewritten);
}
