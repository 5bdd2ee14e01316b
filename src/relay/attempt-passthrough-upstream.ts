import type { FastifyReply } from 'fastify';
import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import type { ChannelRecord } from '../catalog/catalog-records.js';
import { buildProviderRequest } from '../providers/build-provider-request.js';
import type { UpstreamTextStyle } from '../providers/provider-request.js';
import { UpstreamBodyTooLarge, type UpstreamBody } from '../providers/upstream-body.js';
import type { UpstreamSignal } from '../providers/upstream-client.js';
import { createSseDecoder } from '../streaming/decode-sse.js';
import { meterStreamPart, meterWholeResponse } from './meter-stream-part.js';
import { StreamEndedMidAnswer } from './stream-ended-mid-answer.js';
import { StreamOpening } from './stream-opening.js';
import { eventBoundFor } from './stream-event-bound.js';
import { errorDocumentFailure } from './error-document-failure.js';
import { readFailureOutcome } from './read-failure-outcome.js';
import { readInBandFailure } from './read-in-band-failure.js';
import { failedAttemptFrom } from './read-upstream-error.js';
import type { RelayServices } from './relay-services.js';
import type { AttemptOutcome } from './run-failover.js';
import type { TextStyleConverters } from './text-style.js';
import type { UsageMeter } from './usage-meter.js';
import { readBodyChunks, type ChunkSource } from './read-body-chunks.js';
import { endsResponsesMessage, startsResponsesOutput } from './responses/ends-responses-message.js';
import { ClientStreamWriter, sendWholeAnswer, streamResponseHeaders } from './write-to-client.js';

export interface PassthroughAttemptInput {
  services: RelayServices;
  channel: ChannelRecord;
  key: string;
  style: UpstreamTextStyle;
  converters: TextStyleConverters;
  /** The bytes to send (the client's, with the model rewritten when mapped). */
  body: string | Buffer;
  upstreamModel: string;
  stream: boolean;
  /** How a streaming client's events are framed: SSE, or Gemini's JSON array (no `alt=sse`). */
  clientFraming: 'sse' | 'json-array';
  clientRequestHeaders: Record<string, string | string[] | undefined>;
  clientHeaders: Record<string, string>;
  reply: FastifyReply;
  meter: UsageMeter;
  signal: UpstreamSignal;
}

/**
 * Same style in and out (Messages → Anthropic, Gemini → Gemini): the upstream's events go to the client as
 * they arrive, unchanged; the style's decoder only reads usage and text on the way. A Gemini upstream is
 * always streamed (SSE): a client that asked for Gemini's JSON-array stream gets the same events as array
 * elements, one by one, and a non-streaming one the events merged into one answer (`mergeStreamEvents`),
 * with every field the upstream sent.
 */
export async function attemptPassthroughUpstream(input: PassthroughAttemptInput): Promise<AttemptOutcome<{ status: number }>> {
  const { services, meter, reply } = input;
  const target = buildProviderRequest(input.style, { baseUrl: input.channel.baseUrl, key: input.key, upstreamModel: input.upstreamModel, stream: input.stream, clientHeaders: input.clientRequestHeaders });
  const sent = await services.upstream.send({ url: target.url, method: 'POST', headers: target.headers, body: input.body, signal: input.signal });
  if (!sent.ok) return { kind: 'failed', failure: sent.failure };
  const { response } = sent;
  const status = response.statusCode;
  // A 3xx never gets here: the upstream client fails it (redirect-failure.ts).
  if (status >= 400) return failedAttemptFrom(response, input.key);
  const contentType = response.contentType;
  if (!contentType.includes('text/event-stream')) {
    meter.wholeAnswerArrived = true;
    let bytes: Buffer;
    try {
      bytes = await response.body.bytes();
    } catch (error) {
      return readFailureOutcome(error, meter, status);
    }
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      json = undefined;
    }
    // A 2xx error document (`{"type":"error","error":…}`, as chained gateways answer a failure) delivered
    // nothing: the channel's fault, tried elsewhere and charged nothing, as on a converted route.
    const errorDocument = errorDocumentFailure(json, input.key);
    if (errorDocument !== undefined) return { kind: 'failed', failure: errorDocument };
    try {
      // A Gemini upstream that answered its JSON-array stream, not the SSE asked for: metered as the merged answer.
      const merge = input.converters.mergeStreamEvents;
      meterWholeResponse(meter, input.converters.parseResponse(Array.isArray(json) && merge !== undefined ? merge(json) : json).value, services.now);
    } catch {
      // Not JSON we understand: the client still gets it as sent, and billing counts its prompt alone.
      meter.firstTokenAt = services.now();
    }
    // Read on after its client left (for its usage): there is no one to send it to.
    if (meter.clientAborted) return { kind: 'served', value: { status }, status };
    meter.committed = true;
    sendWholeAnswer(reply, status, input.clientHeaders, contentType || 'application/json', bytes);
    return { kind: 'served', value: { status }, status };
  }

  const merge = input.stream ? undefined : input.converters.mergeStreamEvents;
  if (merge !== undefined) return collectWholeAnswer(input, response.body, status, merge);
  const jsonArray = input.clientFraming === 'json-array';
  const decoder = input.converters.createDecoder();
  // A Responses stream is usually whole once its message is finished: a client that leaves then is waited
  // out for `response.completed` (usage-meter.ts), unless more output begins. Anthropic and Gemini report
  // usage with their finish.
  const responses = input.style === 'openai-responses';
  // Each vendor's own framing: Google ends its events with CRLF, the others with LF.
  const eventEnd = input.style === 'gemini' ? '\r\n\r\n' : '\n\n';
  if (responses) meter.answerEndsWith = endsResponsesMessage;
  // Waited out after its client left, the answer went on with more output (a tool call after a preamble
  // message, a second message): the call ends here, as one left mid-answer does.
  let moreOutputAfterClientLeft = false;
  const client = new ClientStreamWriter(reply, meter, () => streamResponseHeaders(input.clientHeaders, jsonArray ? 'application/json' : undefined));
  // The opening events wait for the answer's first content: an in-band failure before it fails over.
  const opening = new StreamOpening((text) => client.write(text));
  if (!jsonArray) meter.stream?.open(client, opening);
  const write = (text: string) => opening.push(text);
  let elements = 0;
  // Google writes a mid-stream error as a bare JSON object, not a `data:` event: @google/genai raises
  // ApiError only for that form (it reads a `data:` error as a chunk without candidates and ends normally).
  // So a Gemini upstream's error event reaches an SSE client bare, as the gateway's own errors do
  // (encode-gemini-stream.ts), unframed (the SDK refuses an unterminated segment at the end, should it
  // arrive merged with earlier events), and nothing is written after it (nor after a JSON array's error
  // element). Other styles' errors are events like the rest (a Responses `error` precedes `response.failed`).
  const geminiErrors = input.style === 'gemini';
  let endedByError = false;
  const sse = createSseDecoder({
    maxEventBytes: eventBoundFor(input.style, services.settings.maxStreamEventBytes, response.body.wholeLimitBytes),
    bareJsonEvents: input.style === 'gemini',
    onEvent(event) {
      if (opening.failed || moreOutputAfterClientLeft) return;
      if (responses) {
        if (meter.waitingForUsage && startsResponsesOutput(event.data)) {
          moreOutputAfterClientLeft = true;
          return;
        }
        meter.lastStreamEvent = event.data;
      }
      let isError = false;
      for (const part of decoder.push(event)) {
        meterStreamPart(meter, part, services.now);
        opening.admit(part);
        if (part.type === 'error') isError = true;
      }
      if (opening.failed || endedByError) return;
      const bareError = isError && geminiErrors;
      if (bareError) endedByError = true;
      if (jsonArray) write(`${elements++ === 0 ? '[' : ',\r\n'}${event.data}`);
      else if (bareError) write(event.data);
      else write(event.event === undefined ? `data: ${event.data}${eventEnd}` : `event: ${event.event}\ndata: ${event.data}${eventEnd}`);
    },
  });
  const closeArray = () => (!jsonArray ? '' : elements === 0 ? '[]' : ']');
  try {
    await readBodyChunks(response.body, (chunk) => {
      sse.push(chunk);
      // Waited out for its usage: once read, or once more output began, nothing else is needed.
      return opening.failed || moreOutputAfterClientLeft || meter.stopsReading() ? 'stop' : client.flushAndDrain();
    });
    const failedBeforeAnswer = opening.failedOutcome(meter, input.key);
    if (failedBeforeAnswer !== undefined) return failedBeforeAnswer;
    sse.end();
    // Cut mid-answer: the decoder's closing usage would be the interim one (Anthropic's message_start).
    if (!decoder.complete) throw new StreamEndedMidAnswer();
    for (const part of decoder.end()) meterStreamPart(meter, part, services.now);
    opening.release();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (meter.clientAborted || !meter.committed) return readFailureOutcome(error, meter, status);
    meter.interruption = `upstream stream interrupted: ${message}`;
    // Told in its own style, as a converted stream is (the relayed bytes end mid-answer).
    const told = input.converters.encodeStreamError('The upstream stream was interrupted.', 'stream_interrupted');
    client.end(jsonArray ? `${elements === 0 ? '[' : ',\r\n'}${told}]` : told);
    return { kind: 'served', value: { status }, status };
  }
  if (jsonArray) write(closeArray());
  else if (!meter.committed) client.write('');
  client.end();
  return { kind: 'served', value: { status }, status };
}

/**
 * A non-streaming client of a style whose upstream always streams: every event is parsed and metered as
 * it comes, and the merged answer is sent once the stream is complete. An in-band error fails the attempt
 * (nothing reached the client: the next channel is tried), billed as an answer that failed mid-way.
 */
async function collectWholeAnswer(
  input: PassthroughAttemptInput,
  body: UpstreamBody,
  status: number,
  merge: (events: readonly unknown[]) => Record<string, unknown>,
): Promise<AttemptOutcome<{ status: number }>> {
  const { services, meter } = input;
  const decoder = input.converters.createDecoder();
  const events: unknown[] = [];
  const parts: CanonicalStreamPart[] = [];
  const note = (produced: CanonicalStreamPart[]) => {
    for (const part of produced) {
      meterStreamPart(meter, part, services.now);
      if (part.type === 'error') parts.push(part);
    }
  };
  const sse = createSseDecoder({
    maxEventBytes: eventBoundFor(input.style, services.settings.maxStreamEventBytes, body.wholeLimitBytes),
    bareJsonEvents: input.style === 'gemini',
    onEvent(event) {
      try {
        events.push(JSON.parse(event.data));
      } catch {
        // Not JSON: nothing to merge (the decoder warns of it).
      }
      note(decoder.push(event));
    },
  });
  // The answer is held whole before it is sent: bounded as a whole-body read is (MAX_UPSTREAM_RESPONSE_MB).
  let collectedBytes = 0;
  try {
    await readBodyChunks(body, (chunk) => {
      collectedBytes += chunk.length;
      if (collectedBytes > body.wholeLimitBytes) return 'stop';
      sse.push(chunk);
      return meter.clientAborted ? 'stop' : undefined;
    });
    if (collectedBytes > body.wholeLimitBytes) throw new UpstreamBodyTooLarge(body.wholeLimitBytes);
    sse.end();
    if (!meter.clientAborted && !decoder.complete) throw new StreamEndedMidAnswer();
    note(decoder.end());
  } catch (error) {
    return readFailureOutcome(error, meter, status);
  }
  if (meter.clientAborted) return { kind: 'served', value: { status }, status };
  const failure = readInBandFailure(parts, input.key);
  // A request the upstream refused in-band before producing anything costs nothing, as its 400 would.
  if (failure !== undefined) return { kind: 'failed', failure, upstreamAnswered: failure.kind !== 'status' || meter.producedBillable() };
  meter.committed = true;
  sendWholeAnswer(input.reply, status, input.clientHeaders, 'application/json', JSON.stringify(merge(events)));
  return { kind: 'served', value: { status }, status };
}

