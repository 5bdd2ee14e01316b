import type { FastifyReply } from 'fastify';
import type { CanonicalRequest } from '../canonical/canonical-request.js';
import type { CanonicalResponse } from '../canonical/canonical-response.js';
import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import type { NormalizedUsage } from '../billing/normalized-usage.js';
import { collectStreamParts } from '../canonical/collect-stream-parts.js';
import { UnsendableRequest, type ConversionContext } from '../canonical/conversion.js';
import { refuseEmptyUserTurn } from './refuse-empty-user-turn.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ChannelRecord } from '../catalog/catalog-records.js';
import { buildProviderRequest, upstreamStreams } from '../providers/build-provider-request.js';
import type { UpstreamTextStyle } from '../providers/provider-request.js';
import { UpstreamBodyTooLarge } from '../providers/upstream-body.js';
import type { UpstreamSignal } from '../providers/upstream-client.js';
import { createSseDecoder } from '../streaming/decode-sse.js';
import { meterStreamPart, meterWholeResponse } from './meter-stream-part.js';
import { StreamEndedMidAnswer } from './stream-ended-mid-answer.js';
import { readFailureOutcome } from './read-failure-outcome.js';
import { readFailedAnswer, readInBandFailure } from './read-in-band-failure.js';
import { failedAttemptFrom } from './read-upstream-error.js';
import type { RelayServices } from './relay-services.js';
import type { AttemptOutcome } from './run-failover.js';
import type { TextStyleConverters, TextStyleName } from './text-style.js';
import type { UsageMeter } from './usage-meter.js';
import { readBodyChunks } from './read-body-chunks.js';
import { StreamOpening } from './stream-opening.js';
import { eventBoundFor } from './stream-event-bound.js';
import { replaysReasoning } from './replays-reasoning.js';
import { estimateSentOpaqueTokens } from './text/estimate-sent-opaque-tokens.js';
import { partWithClientToolName, responseWithClientToolNames, toolNameAliases, withToolAliases } from './tool-name-aliases.js';
import { unpairedToolResult } from './unpaired-tool-result.js';
import { ClientStreamWriter, sendWholeAnswer, sseContentType, streamResponseHeaders } from './write-to-client.js';

export interface ConvertedAttemptInput {
  services: RelayServices;
  channel: ChannelRecord;
  key: string;
  upstreamStyle: UpstreamTextStyle;
  upstream: TextStyleConverters;
  inbound: TextStyleConverters;
  /** The client's style (a Responses client may lean on responses stored upstream). */
  clientStyle: TextStyleName;
  request: CanonicalRequest;
  upstreamModel: string;
  clientStreams: boolean;
  /** OpenAI clients' `stream_options.include_usage`. */
  includeUsage: boolean;
  clientRequestHeaders: Record<string, string | string[] | undefined>;
  clientHeaders: Record<string, string>;
  /** How the client's stream is framed: SSE, or Gemini's streamed JSON array when it did not ask for alt=sse. */
  clientFraming: 'sse' | 'json-array';
  context: ConversionContext;
  reply: FastifyReply;
  meter: UsageMeter;
  signal: UpstreamSignal;
  /** The opaque reasoning the client replays, within the prompt's local count (TextInbound `opaquePromptTokens`). */
  clientOpaqueTokens: number;
  /** Collects what could not be carried across (logged). */
  warnings: string[];
  /** The usage settlement bills when the upstream reports none, shown to the client in its place. */
  countUsageLocally(): Promise<NormalizedUsage>;
}

/** One try of a channel that speaks another style: canonical request out, answer converted back part by part. */
export async function attemptConvertedUpstream(input: ConvertedAttemptInput): Promise<AttemptOutcome<{ status: number }>> {
  const { services, meter, reply } = input;
  const streamsUpstream = upstreamStreams(input.upstreamStyle, input.clientStreams);
  refuseUnpairedToolResults(input);
  refuseEmptyUserTurn(input.request, input.warnings);
  // Gemini's function names may hold dots and colons, which the other vendors refuse: those travel as aliases.
  const aliases = input.upstreamStyle === 'gemini' ? undefined : toolNameAliases(input.request);
  const request = aliases === undefined ? input.request : withToolAliases(input.request, aliases);
  const outputLimit = defaultMaxTokens(input.channel, input.upstreamModel, services);
  // A request that names no output limit is sent the one its reservation covers (Anthropic's formatter
  // applies it itself, as Anthropic requires one): an upstream left to its own could produce more.
  const limited = request.maxOutputTokens === undefined && input.upstreamStyle !== 'anthropic-messages' ? { maxOutputTokens: outputLimit } : {};
  let formatted: ReturnType<TextStyleConverters['formatRequest']>;
  try {
    formatted = input.upstream.formatRequest({ ...request, stream: streamsUpstream, ...limited }, input.upstreamModel, {
      defaultMaxOutputTokens: outputLimit,
      replayReasoning: replaysReasoning(input.channel, input.upstreamModel),
      outputLimitField: input.channel.settings.max_tokens_field,
      reasoningEffortSetting: input.channel.settings.reasoning_effort,
    });
  } catch (error) {
    // The request's fault, before any upstream call: a 400, not a channel failure.
    if (error instanceof UnsendableRequest) throw new GatewayError('invalid_request', error.message, { param: error.param });
    throw error;
  }
  input.warnings.push(...formatted.warnings);
  // What the conversion left out of the client's reasoning (another vendor's signatures, unsigned thinking
  // Anthropic cannot verify, reasoning the style has no field for: opaque tokens and text) never reaches the
  // upstream: a local count leaves it out too.
  meter.unsentPromptTokens = Math.max(0, input.clientOpaqueTokens - estimateSentOpaqueTokens(input.upstreamStyle, formatted.value));
  meter.unsentPromptTexts = formatted.unsentReasoningTexts;
  const body = withStreamFlags(input.upstreamStyle, formatted.value, streamsUpstream);
  const target = buildProviderRequest(input.upstreamStyle, { baseUrl: input.channel.baseUrl, key: input.key, upstreamModel: input.upstreamModel, stream: streamsUpstream, clientHeaders: input.clientRequestHeaders });
  const sent = await services.upstream.send({ url: target.url, method: 'POST', headers: target.headers, body: JSON.stringify(body), signal: input.signal });
  if (!sent.ok) return { kind: 'failed', failure: sent.failure };
  const { response } = sent;
  const status = response.statusCode;
  // A 3xx never gets here: the upstream client fails it (redirect-failure.ts).
  if (status >= 400) return failedAttemptFrom(response, input.key);

  if (!streamsUpstream) {
    meter.wholeAnswerArrived = true;
    let json: unknown;
    try {
      json = await response.body.json();
    } catch (error) {
      return readFailureOutcome(error, meter, status);
    }
    let parsed: ReturnType<TextStyleConverters['parseResponse']>;
    try {
      parsed = input.upstream.parseResponse(json);
    } catch (error) {
      // A 200 whose body is no answer of its style: the channel's fault, tried elsewhere (a 502 if none
      // answers), and, as a 2xx error document, charged nothing — nothing in it can be shown or billed.
      return { kind: 'failed', failure: { kind: 'status', status: 502, message: `the upstream's answer could not be read: ${(error as Error).message}` } };
    }
    input.warnings.push(...parsed.warnings);
    const answer = aliases === undefined ? parsed.value : responseWithClientToolNames(parsed.value, aliases);
    meterWholeResponse(meter, answer, services.now);
    // Read on after its client left (for its usage): there is no one to send it to.
    if (meter.clientAborted) return { kind: 'served', value: { status }, status };
    // A 200 whose answer says it failed (Responses `status: "failed"`) is not shown as a whole answer.
    const failure = readFailedAnswer(answer, json, input.key);
    // A request the upstream refused (by its error code) costs nothing, as its 400 would — unless the failed
    // answer has content or reports usage (what it ran, searches included, the upstream bills).
    if (failure !== undefined) return { kind: 'failed', failure, upstreamAnswered: failure.kind !== 'status' || answer.content.length > 0 || meter.upstreamUsage !== undefined };
    return sendWhole(input, answer, status);
  }

  // A finish without usage from an upstream that reported none waits for the local count (below), so the
  // usage the client reads is the usage it is billed, not zeros.
  let finishWithoutUsage: Extract<CanonicalStreamPart, { type: 'finish' }> | undefined;

  const decoder = input.upstream.createDecoder();
  const collected: CanonicalStreamPart[] = [];
  const encoder = input.clientStreams ? input.inbound.createEncoder(clientContext(input), { includeUsage: input.includeUsage }) : undefined;
  let arrayOpened = false;
  const client = new ClientStreamWriter(reply, meter, () => streamResponseHeaders(input.clientHeaders, input.clientFraming === 'json-array' ? 'application/json; charset=utf-8' : sseContentType));
  // The opening frames wait for the answer's first content: an in-band failure before it fails over.
  const opening = new StreamOpening((text) => client.write(text));
  if (encoder !== undefined && input.clientFraming === 'sse') meter.stream?.open(client, opening);
  const write = (text: string) => opening.push(text);
  const emit = (parts: CanonicalStreamPart[]) => {
    for (const upstreamPart of parts) {
      const part = aliases === undefined ? upstreamPart : partWithClientToolName(upstreamPart, aliases);
      meterStreamPart(meter, part, services.now);
      if (encoder === undefined) collected.push(part);
      else if (opening.admit(part)) {
        if (part.type === 'finish' && part.usage === undefined && meter.upstreamUsage === undefined) finishWithoutUsage = part;
        else write(frame(encoder.encode(part)));
      }
    }
  };
  // Gemini clients without alt=sse read a JSON array: each SSE data payload becomes one element.
  const frame = (sse: string): string => {
    if (input.clientFraming === 'sse' || sse === '') return sse;
    let out = '';
    for (const line of sse.split('\n')) {
      // A `data:` event, or a bare JSON object (the Gemini encoder's mid-stream error).
      const element = line.startsWith('data: ') ? line.slice(6) : line.startsWith('{') ? line : undefined;
      if (element === undefined) continue;
      out += `${arrayOpened ? ',\r\n' : '['}${element}`;
      arrayOpened = true;
    }
    return out;
  };
  const sse = createSseDecoder({
    maxEventBytes: eventBoundFor(input.upstreamStyle, services.settings.maxStreamEventBytes, response.body.wholeLimitBytes),
    // Google writes a mid-stream error as a bare JSON object, not a `data:` event.
    bareJsonEvents: input.upstreamStyle === 'gemini',
    onEvent: (event) => emit(decoder.push(event)),
  });
  // A non-streaming client's answer is held whole before it is sent: bounded as a whole-body read is.
  const holdLimit = encoder === undefined ? response.body.wholeLimitBytes : Number.POSITIVE_INFINITY;
  let heldBytes = 0;
  try {
    await readBodyChunks(response.body, (chunk) => {
      heldBytes += chunk.length;
      if (heldBytes > holdLimit) return 'stop';
      sse.push(chunk);
      return opening.failed ? 'stop' : client.flushAndDrain();
    });
    if (heldBytes > holdLimit) throw new UpstreamBodyTooLarge(holdLimit);
    const failedBeforeAnswer = opening.failedOutcome(meter, input.key);
    if (failedBeforeAnswer !== undefined) return failedBeforeAnswer;
    sse.end();
    // A body that ends mid-answer is an interruption, as a reset is: not a finish to show as whole.
    if (!decoder.complete) throw new StreamEndedMidAnswer();
    emit(decoder.end());
    opening.release();
    if (finishWithoutUsage !== undefined && encoder !== undefined) {
      write(frame(encoder.encode({ type: 'finish', finishReason: finishWithoutUsage.finishReason, usage: await input.countUsageLocally() })));
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (meter.clientAborted || !meter.committed) return readFailureOutcome(error, meter, status);
    meter.interruption = `upstream stream interrupted: ${message}`;
    if (encoder !== undefined) {
      write(frame(encoder.encode({ type: 'error', message: 'The upstream stream was interrupted.', code: 'stream_interrupted' })));
      // A Responses client reads the usage in its closing `response.failed`: the usage it is billed.
      if (input.clientStyle === 'openai-responses') write(frame(encoder.encode({ type: 'usage', usage: meter.upstreamUsage ?? (await input.countUsageLocally()) })));
      write(closing(encoder.end(), input.clientFraming, arrayOpened));
    }
    client.end();
    return { kind: 'served', value: { status }, status };
  } finally {
    input.warnings.push(...decoder.warnings, ...(encoder?.warnings ?? []));
  }
  if (encoder === undefined) {
    const failure = readInBandFailure(collected, input.key);
    if (failure === undefined) return await sendWhole(input, collectStreamParts(collected), status);
    // The error goes to the client as this failure (and to the log with it), not as a served interruption.
    meter.interruption = undefined;
    return { kind: 'failed', failure, upstreamAnswered: failure.kind !== 'status' || meter.producedBillable() };
  }
  write(closing(encoder.end(), input.clientFraming, arrayOpened));
  if (!meter.committed) write(input.clientFraming === 'json-array' ? '[]' : ': empty\n\n');
  client.end();
  return { kind: 'served', value: { status }, status };
}

/** The conversion context of the client's answer: a Gemini upstream's thought signatures go where a Chat client keeps them. */
function clientContext(input: ConvertedAttemptInput): ConversionContext {
  return input.upstreamStyle === 'gemini' ? { ...input.context, thoughtSignaturesOnToolCalls: true } : input.context;
}

function closing(text: string, framing: 'sse' | 'json-array', arrayOpened: boolean): string {
  if (framing === 'sse') return text;
  return arrayOpened ? ']' : '';
}

async function sendWhole(input: ConvertedAttemptInput, response: CanonicalResponse, status: number): Promise<AttemptOutcome<{ status: number }>> {
  // No usage from the upstream: the client is shown the local count it is billed, not zeros.
  const shown = response.usage === undefined && input.meter.upstreamUsage === undefined ? Object.assign({}, response, { usage: await input.countUsageLocally() }) : response;
  const formatted = input.inbound.formatResponse(shown, clientContext(input));
  input.warnings.push(...formatted.warnings);
  input.meter.committed = true;
  sendWholeAnswer(input.reply, status, input.clientHeaders, 'application/json', JSON.stringify(formatted.value));
  return { kind: 'served', value: { status }, status };
}

/**
 * Each upstream style asks for a stream its own way; OpenAI also needs to be asked for usage.
 * Object.assign, not spreads: V8 (Node 20) makes adding keys to a `{ ...body }` clone cost µs.
 */
function withStreamFlags(style: UpstreamTextStyle, body: Record<string, unknown>, streams: boolean): Record<string, unknown> {
  switch (style) {
    case 'openai-chat':
      return Object.assign({}, body, streams ? { stream: true, stream_options: { include_usage: true } } : { stream: false });
    case 'openai-responses':
    case 'anthropic-messages':
      return Object.assign({}, body, { stream: streams });
    case 'gemini':
      return body;
  }
}

/**
 * The output limit sent to an upstream when the client named none: the channel's `settings.max_tokens` (a
 * number, or a map of upstream model → number), else the site default. Never raised (for thinking or
 * anything else): the reservation covers it (catalog `outputBudgetFor`).
 */
export function defaultMaxTokens(channel: ChannelRecord, upstreamModel: string, services: RelayServices): number {
  const setting = channel.settings.max_tokens;
  if (typeof setting === 'number' && setting > 0) return setting;
  if (setting !== null && typeof setting === 'object') {
    const perModel = (setting as Record<string, unknown>)[upstreamModel];
    if (typeof perModel === 'number' && perModel > 0) return perModel;
  }
  return services.catalog.snapshot.settings.defaultMaxOutputTokens;
}

/**
 * A Responses client's tool result whose call is in a response stored upstream (previous_response_id):
 * no converted upstream takes it without its call, and the gateway keeps no stored responses. A 400 naming
 * `input`, with no upstream call (a Responses channel, passed the body as it is, is never asked this).
 */
function refuseUnpairedToolResults(input: ConvertedAttemptInput): void {
  if (input.clientStyle !== 'openai-responses') return;
  const unpaired = unpairedToolResult(input.request);
  if (unpaired === undefined) return;
  const message = `The function_call_output for '${unpaired}' has no function_call before it in input. A response stored upstream (previous_response_id) cannot be read on this model's channel: send the function_call in input too.`;
  throw new GatewayError('invalid_request', message, { param: 'input' });
}
