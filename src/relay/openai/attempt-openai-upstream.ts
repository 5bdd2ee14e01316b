import type { FastifyReply } from 'fastify';
import { emptyUsage } from '../../billing/normalized-usage.js';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { describeFailure, type UpstreamSignal } from '../../providers/upstream-client.js';
import type { UpstreamFailure } from '../../routing/classify-upstream-failure.js';
import { readFailureOutcome } from '../read-failure-outcome.js';
import { redactSecret } from '../redact-secret.js';
import { failedAttemptFrom } from '../read-upstream-error.js';
import type { AttemptOutcome } from '../run-failover.js';
import type { RelayServices } from '../relay-services.js';
import type { UsageMeter } from '../usage-meter.js';
import { errorDocumentFailure } from '../error-document-failure.js';
import { isErrorDocument } from '../is-error-document.js';
import { sendWholeAnswer } from '../write-to-client.js';
import { findTopLevelUsage } from './find-top-level-usage.js';
import { pipeOpenaiStream, type PipeStreamInput, type PipeStreamResult } from './pipe-openai-stream.js';
import { noteChatMessageText } from './note-chat-message-text.js';
import { readOpenaiUsage, type ReadOpenaiUsageOptions } from './read-openai-usage.js';
import { skipEchoedPrompt, type EchoedPrompt } from './skip-echoed-prompt.js';

export interface OpenaiAttemptInput {
  services: RelayServices;
  /** Where on the channel's base URL the request goes (`/v1/embeddings`). */
  upstreamPath: string;
  /** The request headers when not OpenAI's (`Authorization: Bearer`, JSON): a Gemini channel's `x-goog-api-key`. */
  upstreamHeaders?: Record<string, string>;
  channel: ChannelRecord;
  key: string;
  /** The exact bytes to send upstream (the client's, or rewritten for mapping / usage reporting). */
  upstreamBody: string | Buffer;
  /** The body's content type: `application/json` unless set (an image edit's multipart form). */
  upstreamContentType?: string;
  /** The client asked for a stream (false when not given: the endpoints that answer one document). */
  stream?: boolean;
  clientWantsUsage?: boolean;
  /** A streamed answer of one choice: its finish_reason ends it (a client leaving then is waited out for the usage). */
  singleChoice?: boolean;
  reply: FastifyReply;
  meter: UsageMeter;
  signal: UpstreamSignal;
  /** Headers for the client once this attempt serves (request id, channel, attempt count). */
  clientHeaders: Record<string, string>;
  /** How a streamed answer is relayed and metered; the default is chat-style (pipe-openai-stream.ts). */
  pipeStream?: (input: PipeStreamInput) => Promise<PipeStreamResult>;
  /** A 2xx whole answer that is really the channel's failure (UniFuncs' dead key): a failed attempt, not served. */
  channelFailureIn?: ((answer: Buffer, contentType: string) => UpstreamFailure | undefined) | undefined;
  /** What a whole answer tells the meter; the default reads chat-style usage and text. */
  readWholeAnswer?: (answer: Buffer, meter: UsageMeter, contentType: string) => void;
  /** False: output tokens the upstream reports are not billed (embeddings, moderations, rerank make none). */
  billsOutput?: false | undefined;
  /**
   * True: a 2xx error document is the channel's failure, tried on another channel (the text routes); else it
   * is relayed at no charge (embeddings, rerank, moderations). Found by the parse an answer without usage
   * already gets: an answer with usage is never searched for one.
   */
  errorDocumentFails?: true | undefined;
  /** The prompt each choice's text starts with (legacy Completions `echo`), left out of a local count. */
  echoedPrompt?: EchoedPrompt | undefined;
  /**
   * True: a whole answer is parsed for its `service_tier` too (a request that asked for OpenAI's Priority
   * tier, billed at it when served at it), not only searched for its usage.
   */
  readsServiceTier?: true | undefined;
}

export interface OpenaiServed {
  status: number;
}

/** One try of a channel answering one JSON document or an OpenAI-style stream: send, then relay the answer or report a typed failure. */
export async function attemptOpenaiUpstream(input: OpenaiAttemptInput): Promise<AttemptOutcome<OpenaiServed>> {
  const { services, channel, meter, reply } = input;
  const sent = await services.upstream.send({
    url: `${channel.baseUrl}${input.upstreamPath}`,
    method: 'POST',
    headers: input.upstreamHeaders ?? { authorization: `Bearer ${input.key}`, 'content-type': input.upstreamContentType ?? 'application/json', accept: input.stream ? 'text/event-stream' : 'application/json' },
    body: input.upstreamBody,
    signal: input.signal,
  });
  if (!sent.ok) return { kind: 'failed', failure: sent.failure };
  const { response } = sent;
  const status = response.statusCode;

  // A 3xx never gets here: the upstream client fails it (redirect-failure.ts).
  if (status >= 400) return failedAttemptFrom(response, input.key);

  const contentType = response.contentType;
  if (input.stream === true && contentType.includes('text/event-stream')) {
    const piped = await (input.pipeStream ?? pipeOpenaiStream)({
      body: response.body,
      reply,
      headers: input.clientHeaders,
      meter,
      clientWantsUsage: input.clientWantsUsage === true,
      singleChoice: input.singleChoice === true,
      maxEventBytes: services.settings.maxStreamEventBytes,
      now: services.now,
      echoedPrompt: input.echoedPrompt,
    });
    // Before anything reached the client: a timeout (504) or a connection failure (502), and retried.
    if (piped.kind === 'failed_before_first_byte') return { kind: 'failed', failure: describeFailure(piped.error) };
    return { kind: 'served', value: { status }, status };
  }

  // Non-streaming answers are complete JSON documents: read whole (to learn usage), then sent as received.
  meter.wholeAnswerArrived = true;
  let bytes: Buffer;
  try {
    bytes = await response.body.bytes();
  } catch (error) {
    return readFailureOutcome(error, meter, status);
  }
  const channelFailure = input.channelFailureIn?.(bytes, contentType);
  if (channelFailure !== undefined) return { kind: 'failed', failure: channelFailure.kind === 'status' ? { ...channelFailure, message: redactSecret(channelFailure.message, input.key) } : channelFailure };
  meter.firstTokenAt = services.now();
  if (input.readWholeAnswer === undefined) {
    const errorDocument = noteNonStreamUsage(bytes, meter, input.billsOutput === false ? noOutputBilled : outputBilled, input.echoedPrompt, input.readsServiceTier === true);
    const failure = input.errorDocumentFails === true ? errorDocumentFailure(errorDocument, input.key) : undefined;
    if (failure !== undefined) {
      // Not an answer that cost nothing but no answer at all: the meter holds nothing of it.
      meter.upstreamUsage = undefined;
      meter.deliveredCalls = undefined;
      return { kind: 'failed', failure };
    }
  } else input.readWholeAnswer(bytes, meter, contentType);
  // Read on after its client left (for its usage): there is no one to send it to.
  if (meter.clientAborted) return { kind: 'served', value: { status }, status };
  meter.committed = true;
  sendWholeAnswer(reply, status, input.clientHeaders, contentType === '' ? 'application/json' : contentType, bytes);
  return { kind: 'served', value: { status }, status };
}

const outputBilled: ReadOpenaiUsageOptions = { billsOutput: true };
const noOutputBilled: ReadOpenaiUsageOptions = { billsOutput: false };

/**
 * Whatever the content type says: some upstreams label their JSON `text/plain` or `text/html`. Returns the
 * answer when it is a 2xx error document (metered as costing nothing).
 */
function noteNonStreamUsage(bytes: Buffer, meter: UsageMeter, options: ReadOpenaiUsageOptions, echoedPrompt: EchoedPrompt | undefined, readsServiceTier: boolean): Record<string, unknown> | undefined {
  // Usage alone when it can be found cheaply; the whole answer only when usage is missing or unclear (or
  // counts nothing), or when its tier is wanted too.
  const found = readsServiceTier ? undefined : findTopLevelUsage(bytes);
  if (found !== undefined) {
    meter.upstreamUsage = readOpenaiUsage(found, options);
    if (meter.upstreamUsage !== undefined) return undefined;
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  meter.upstreamUsage = readOpenaiUsage(json.usage, options);
  if (readsServiceTier && typeof json.service_tier === 'string') meter.servedTier = json.service_tier;
  if (meter.upstreamUsage === undefined && isErrorDocument(json)) {
    // A failure answered with a 2xx: nothing delivered, nothing charged (per token or per call).
    meter.upstreamUsage = emptyUsage();
    meter.deliveredCalls = 0;
    return json;
  }
  if (meter.upstreamUsage !== undefined || !Array.isArray(json.choices)) return undefined;
  const note = (text: string, audio: boolean) => (audio ? meter.audioTranscriptTally : meter.outputTally).add(text);
  for (const [position, choice] of (json.choices as ({ index?: unknown; message?: Record<string, unknown> | null; text?: unknown } | null)[]).entries()) {
    if (choice === null || typeof choice !== 'object') continue;
    if (typeof choice.text === 'string') meter.outputTally.add(echoedPrompt === undefined ? choice.text : skipEchoedPrompt(choice.text, echoedPrompt(typeof choice.index === 'number' ? choice.index : position)));
    const message = choice.message;
    if (message === undefined || message === null || typeof message !== 'object') continue;
    noteChatMessageText(message, note);
    if (message.tool_calls !== undefined && message.tool_calls !== null) meter.outputTally.add(JSON.stringify(message.tool_calls));
  }
  return undefined;
}
