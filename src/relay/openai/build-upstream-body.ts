/**
 * The bytes sent upstream. Passthrough sends the client's exact bytes; only a model mapping, our
 * request for streamed usage, a `stream` asked of an endpoint that never streams, or an output limit the
 * client did not name (`outputLimit`: the one its reservation covers) makes us re-serialize (every other
 * field, known or not, is kept as sent).
 */
export function buildUpstreamBody(
  rawBody: Buffer | undefined,
  body: Record<string, unknown>,
  upstreamModel: string | undefined,
  askForStreamUsage: boolean,
  endpointStreams = true,
  outputLimit?: { field: string; tokens: number },
): string | Buffer {
  const modelChanges = upstreamModel !== undefined && body.model !== upstreamModel;
  // The answer of such an endpoint (responses compaction: protocols.md §8) is read whole: an upstream that
  // honoured the client's `stream` would send SSE. new-api forces it off too.
  const dropsStream = !endpointStreams && body.stream != null && body.stream !== false;
  if (!modelChanges && !askForStreamUsage && !dropsStream && outputLimit === undefined && rawBody !== undefined) return rawBody;
  // Object.assign, not a spread: V8 (Node 20) makes adding keys to a `{ ...body }` clone cost µs.
  const rewritten: Record<string, unknown> = Object.assign({}, body);
  if (modelChanges) rewritten.model = upstreamModel;
  if (dropsStream) delete rewritten.stream;
  if (outputLimit !== undefined) rewritten[outputLimit.field] = outputLimit.tokens;
  if (askForStreamUsage) {
    const options = body.stream_options !== null && typeof body.stream_options === 'object' ? body.stream_options : {};
    rewritten.stream_options = Object.assign({}, options, { include_usage: true });
  }
  return JSON.stringify(rewritten);
}
