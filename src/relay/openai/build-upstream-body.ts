import { closeBrace, isJsonWhitespace, openBrace } from '../../streaming/json-char-codes.js';

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
  if (!modelChanges && !askForStreamUsage && !dropsStream && rawBody !== undefined) {
    if (outputLimit === undefined) return rawBody;
    // Only the limit to add, to a body that has no such key (not even null): spliced in, not re-serialized.
    if (!(outputLimit.field in body)) return withLeadingField(rawBody, outputLimit.field, outputLimit.tokens);
  }
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

/** `raw` (a JSON object's bytes) with `"field":value,` inserted after its opening brace. */
function withLeadingField(raw: Buffer, field: string, value: number): Buffer {
  const brace = raw.indexOf(openBrace);
  // The body parsed as an object, so its first byte after any whitespace is `{`; an empty object takes no comma.
  let next = brace + 1;
  while (isJsonWhitespace(raw[next])) next += 1;
  const empty = raw[next] === closeBrace;
  return Buffer.concat([raw.subarray(0, brace + 1), Buffer.from(`${JSON.stringify(field)}:${value}${empty ? '' : ','}`), raw.subarray(brace + 1)]);
}
