import type { FastifyReply } from 'fastify';
import { encodeOpenaiChatStreamError } from '../../convert/openai-chat/encode-openai-chat-stream.js';
import { createSseDecoder } from '../../streaming/decode-sse.js';
import { indexOfQuoted } from '../../streaming/find-quoted-key.js';
import { createDataFrameScanner } from '../../streaming/scan-data-frames.js';
import type { UsageMeter } from '../usage-meter.js';
import { meterStreamPart } from '../meter-stream-part.js';
import { HeldEvents } from '../held-events.js';
import { StreamEndedMidAnswer } from '../stream-ended-mid-answer.js';
import { readBodyChunks, type ChunkSource } from '../read-body-chunks.js';
import { ClientStreamWriter, streamResponseHeaders } from '../write-to-client.js';
import { givesFinishReason } from './gives-finish-reason.js';
import { noteChatMessageText, type NoteOutputText } from './note-chat-message-text.js';
import { readOpenaiUsage } from './read-openai-usage.js';
import { createEchoedPromptSkipper, type EchoedPrompt } from './skip-echoed-prompt.js';

export interface PipeStreamInput {
  body: ChunkSource;
  reply: FastifyReply;
  /** Headers for the client (request id, channel, attempts), sent with the first event. */
  headers: Record<string, string>;
  meter: UsageMeter;
  /** The client asked for `stream_options.include_usage`; otherwise the usage-only chunk we asked for is dropped. */
  clientWantsUsage: boolean;
  /**
   * The answer has one choice: its finish_reason ends it, so a client that leaves after it is waited out
   * for the usage chunk. With more, another choice may still be generating: never waited for.
   */
  singleChoice?: boolean;
  maxEventBytes: number;
  now(): number;
  /** The prompt each choice's text starts with (legacy Completions `echo`): left out of the local count. */
  echoedPrompt?: EchoedPrompt | undefined;
}

export type PipeStreamResult = { kind: 'completed' } | { kind: 'failed_before_first_byte'; error: unknown } | { kind: 'interrupted'; message: string };

/**
 * OpenAI SSE upstream → OpenAI SSE client, event by event as they arrive, with backpressure. Events are
 * forwarded as the upstream framed them: while the upstream sends plain `data: …\n\n` frames (every
 * OpenAI-style server does), as the very bytes received, looked at without decoding
 * (`scan-data-frames.ts`); from the first frame of another shape on, through the full SSE decoder and
 * re-framed as `data:` (and `event:`) lines. Events are parsed until the first text (the log's
 * first-token time) and whenever they may carry a usage object; the others are only held, and parsed
 * for a local count only if the stream ends without upstream usage (bounded: past `heldTextLimit` they
 * are counted on the spot). The client's headers go out with the first event, so a stream that fails
 * before producing anything can still be retried on another channel.
 *
 * A body that ends cleanly with neither `[DONE]` nor a usage report (which the gateway asks for) broke
 * off: it is treated as a reset (`StreamEndedMidAnswer`), so the client gets an error event instead of a
 * truncated answer that looks whole, and an empty body fails over. Both are seen without parsing.
 *
 * An upstream that fails mid-answer sends an error chunk (`{"error": {…}}`; OpenRouter's has `error`
 * beside a chunk's other keys), usually as its stream's last but sometimes followed by a usage report or
 * other chunks: the client gets it as sent, the log its message, and nothing of the gateway's is added
 * after it (the stream ends as the upstream ends it). Any frame with a bare `"error"` key that is not
 * null is parsed, found by the same one byte search per read as `"usage"` (never by parsing every frame).
 */
export async function pipeOpenaiStream(input: PipeStreamInput): Promise<PipeStreamResult> {
  const { reply, meter } = input;
  const client = new ClientStreamWriter(reply, meter, () => streamResponseHeaders(input.headers));
  meter.stream?.open(client);
  let sawDone = false;
  // A usage report ends a stream properly even when it counts nothing (and so is billed by a local count).
  let sawUsage = false;
  // The upstream's own error chunk: the client got it, the log has its message.
  let sawError = false;
  /** Notes a parsed chunk's error object, the upstream's failure (as the decoders' `error` part is noted). */
  const noteUpstreamError = (chunk: Record<string, unknown>) => {
    const error = chunk.error;
    if (error === null || typeof error !== 'object') return;
    sawError = true;
    // The upstream failed: it produces nothing more, and a client that leaves at the error (the openai SDK
    // raises on it) is waited out for a usage report that follows, as one leaving at the finish is.
    meter.answerEndedInError = true;
    const message = (error as { message?: unknown }).message;
    meterStreamPart(meter, { type: 'error', message: typeof message === 'string' && message !== '' ? message : 'upstream error' }, input.now);
  };
  const tally: Tally = {
    meter,
    now: input.now,
    skipEcho: input.echoedPrompt === undefined ? undefined : createEchoedPromptSkipper(input.echoedPrompt),
    noteDelta: (text, audio) => noteText(text, tally, text, audio),
  };

  // Events not parsed yet: needed only if the upstream never reports usage.
  const held = new HeldEvents();
  const countHeld = () => held.drain((data) => tallyData(data, tally));
  const countHeldPastLimit = () => {
    if (held.size >= heldTextLimit) countHeld();
  };
  // The meter keeps the last event read (usage-meter.ts): one choice is whole once it gave its finish_reason.
  meter.answerEndsWith = input.singleChoice === true ? givesFinishReason : undefined;

  /**
   * Parses an event for its usage and text; returns whether the client gets it, or what it gets instead:
   * the gateway asked for usage on its own (include_usage), and an upstream that puts it on the finish
   * chunk (DeepSeek) would show it to a client that did not ask — that one chunk goes without it.
   */
  const inspect = (data: string): boolean | string => {
    // (A one-event answer's finish comes with its first text, parsed rather than held.)
    meter.lastStreamEvent = data;
    let usageOnly = false;
    let chunk: Record<string, unknown> | undefined;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      chunk = undefined;
    }
    if (chunk !== undefined) {
      // OpenAI names the tier on every chunk; a Priority one is billed at that tier (read from the chunks parsed).
      if (typeof chunk.service_tier === 'string') meter.servedTier = chunk.service_tier;
      noteUpstreamError(chunk);
      const choices = chunk.choices;
      if (chunk.usage !== undefined && chunk.usage !== null) {
        sawUsage = true;
        meter.upstreamUsage = readOpenaiUsage(chunk.usage) ?? meter.upstreamUsage;
        usageOnly = Array.isArray(choices) && choices.length === 0;
        if (!usageOnly && !input.clientWantsUsage) {
          if (Array.isArray(choices)) tallyChoices(choices, tally);
          const { usage: _withheld, ...rest } = chunk;
          return JSON.stringify(rest);
        }
      }
      if (Array.isArray(choices)) tallyChoices(choices, tally);
    }
    return !usageOnly || input.clientWantsUsage;
  };

  const forward = (event: { event?: string | undefined; data: string }) => client.write(event.event === undefined ? `data: ${event.data}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`);
  const decoder = createSseDecoder({
    maxEventBytes: input.maxEventBytes,
    onEvent(event) {
      if (event.data === '[DONE]') {
        sawDone = true;
        client.write('data: [DONE]\n\n');
        return;
      }
      if (meter.firstTokenAt !== undefined && !mayCarryUsage(event.data) && !mayCarryError(event.data)) {
        held.addText(event.data);
        meter.lastStreamEvent = event.data;
        countHeldPastLimit();
        forward(event);
        return;
      }
      const verdict = inspect(event.data);
      if (verdict === true) forward(event);
      else if (verdict !== false) forward({ event: event.event, data: verdict });
    },
  });

  const usageKeys = new QuotedKeyFinder(usageKeyBytes);
  const errorKeys = new QuotedKeyFinder(errorKeyBytes);
  const scanner = createDataFrameScanner(input.maxEventBytes, {
    onFrame(bytes, start, end) {
      if (end - start === doneBytes.length && bytes.compare(doneBytes, 0, doneBytes.length, start, end) === 0) {
        sawDone = true;
        return true;
      }
      if (meter.firstTokenAt !== undefined && !mayCarryKeyIn(bytes, start, end, usageKeys) && !mayCarryKeyIn(bytes, start, end, errorKeys)) {
        meter.lastStreamEvent = held.addRange(bytes, start, end);
        countHeldPastLimit();
        return true;
      }
      return inspect(bytes.toString('utf8', start, end));
    },
    onForward(bytes, start, end) {
      client.writeBytes(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end));
    },
    onReplace(data) {
      client.write(`data: ${data}\n\n`);
    },
  });
  // Plain frames so far: the scanner; from the first other frame on, the full decoder.
  let scanning = true;
  const push = (chunk: Buffer) => {
    if (!scanning) return decoder.push(chunk);
    const rest = scanner.push(chunk);
    if (rest === undefined) return;
    scanning = false;
    decoder.push(rest);
  };
  const endOfStream = () => {
    const rest = scanning ? scanner.rest() : undefined;
    if (rest !== undefined) {
      scanning = false;
      decoder.push(rest);
    }
    decoder.end();
  };
  try {
    return await relayEvents();
  } finally {
    // Whatever the ending, a stream the upstream did not report usage for is billed by its text.
    if (meter.upstreamUsage === undefined) countHeld();
  }

  async function relayEvents(): Promise<PipeStreamResult> {
    try {
      const ending = await readBodyChunks(input.body, (chunk) => {
        push(chunk);
        const drained = client.flushAndDrain();
        return meter.stopsReading() ? 'stop' : drained;
      });
      if (ending === 'ended') {
        // (Also when the client left and the body was read on for its usage: its last event may be unframed.)
        endOfStream();
        if (!meter.clientAborted && !sawDone && !sawUsage && !sawError) throw new StreamEndedMidAnswer();
      }
    } catch (error) {
      // The client already got the upstream's error (the log its message): it is the stream's last word.
      if (sawError && meter.committed && !meter.clientAborted) {
        client.end();
        return { kind: 'interrupted', message: error instanceof Error ? error.message : String(error) };
      }
      // Told in-band after the events already decoded.
      return endBrokenStream(error, meter, client);
    }
    // readBodyChunks destroyed the body when it stopped; one that ended needs nothing.
    if (meter.clientAborted) return { kind: 'interrupted', message: 'client disconnected' };
    if (!meter.committed) client.write('');
    client.end();
    return { kind: 'completed' };
  }
}

/**
 * How a relayed stream that threw ends: a client that left is an interruption; before anything reached the
 * client, a failure another channel may retry; after, the client is told in-band (OpenAI SDKs raise an
 * APIError for a data event carrying `error`) and the log learns why.
 */
export function endBrokenStream(error: unknown, meter: UsageMeter, client: ClientStreamWriter): PipeStreamResult {
  const message = error instanceof Error ? error.message : String(error);
  if (meter.clientAborted) return { kind: 'interrupted', message: 'client disconnected' };
  if (!meter.committed) return { kind: 'failed_before_first_byte', error };
  meter.interruption = `upstream stream interrupted: ${message}`;
  client.end(encodeOpenaiChatStreamError('The upstream stream was interrupted.', 'stream_interrupted'));
  return { kind: 'interrupted', message };
}

const doneBytes = Buffer.from('[DONE]');
const usageKeyBytes = Buffer.from('"usage"');
const errorKeyBytes = Buffer.from('"error"');

/** Held events beyond this many characters are counted at once, so a long stream holds no more. */
const heldTextLimit = 256 * 1024;

/**
 * Whether an event may carry a usage object: some `"usage"` key not followed by `null`. A quote inside a
 * JSON string is escaped, so `"usage"` with both quotes bare is a key (or the string value "usage", which
 * errs on the safe side: the event is parsed).
 */
export function mayCarryUsage(data: string): boolean {
  return mayCarryKey(data, '"usage"');
}

/** Whether an event may carry an error object, as `mayCarryUsage` judges (a non-null `"error"` key, anywhere). */
export function mayCarryError(data: string): boolean {
  return mayCarryKey(data, '"error"');
}

function mayCarryKey(data: string, key: string): boolean {
  for (let at = data.indexOf(key); at !== -1; at = data.indexOf(key, at + key.length)) {
    let index = at + key.length;
    while (data.charCodeAt(index) === 0x20) index += 1;
    if (data.charCodeAt(index) !== 0x3a) return true;
    index += 1;
    while (data.charCodeAt(index) === 0x20) index += 1;
    if (!data.startsWith('null', index)) return true;
  }
  return false;
}

/**
 * Finds one quoted key (`"usage"`, `"error"`) in one upstream read. `Buffer#indexOf` searches to the end of
 * the buffer, so a result is kept until the scan has passed it: a read of many events is searched once,
 * not once per event.
 */
class QuotedKeyFinder {
  private bytes: Buffer | undefined;
  private found = -1;
  /** The key without its opening quote: what indexOfQuoted searches for. */
  private readonly tail: Buffer;

  constructor(readonly key: Buffer) {
    this.tail = key.subarray(1);
  }

  /** The first key at or after `from` in `bytes`, or -1. */
  next(bytes: Buffer, from: number): number {
    if (bytes !== this.bytes || (this.found !== -1 && this.found < from)) {
      this.bytes = bytes;
      this.found = indexOfQuoted(bytes, this.tail, from);
    }
    return this.found;
  }
}

/** `mayCarryUsage` (or `mayCarryError`) over the payload bytes[start, end) (a payload has no line feed, so no key straddles `end`). */
function mayCarryKeyIn(bytes: Buffer, start: number, end: number, keys: QuotedKeyFinder): boolean {
  const keyLength = keys.key.length;
  for (let at = keys.next(bytes, start); at !== -1 && at < end; at = keys.next(bytes, at + keyLength)) {
    let index = at + keyLength;
    while (index < end && bytes[index] === 0x20) index += 1;
    if (index === end || bytes[index] !== 0x3a) return true;
    index += 1;
    while (index < end && bytes[index] === 0x20) index += 1;
    if (!(end - index >= 4 && bytes[index] === 0x6e && bytes[index + 1] === 0x75 && bytes[index + 2] === 0x6c && bytes[index + 3] === 0x6c)) return true;
  }
  return false;
}

/** What the local count of a stream's text needs; `skipEcho` only for a Completions stream with `echo`. */
interface Tally {
  meter: UsageMeter;
  now(): number;
  skipEcho: ((index: number, text: string) => string) | undefined;
  /** A delta's text fields, as `noteChatMessageText` finds them. */
  noteDelta: NoteOutputText;
}

/** The text of a held event, for the local count. */
function tallyData(data: string, tally: Tally): void {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return;
  }
  const choices = (chunk as { choices?: unknown } | null)?.choices;
  if (Array.isArray(choices)) tallyChoices(choices, tally);
}

function tallyChoices(choices: unknown[], tally: Tally): void {
  for (let position = 0; position < choices.length; position += 1) {
    const choice = choices[position];
    if (choice === null || typeof choice !== 'object') continue;
    const { delta, text, index } = choice as { delta?: Record<string, unknown>; text?: unknown; index?: unknown };
    if (typeof text === 'string') noteText(text, tally, tally.skipEcho?.(typeof index === 'number' ? index : position, text));
    if (delta === undefined || delta === null || typeof delta !== 'object') continue;
    noteChatMessageText(delta, tally.noteDelta);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls as ({ function?: { name?: unknown; arguments?: unknown } } | null)[]) {
        if (typeof call?.function?.name === 'string') noteText(call.function.name, tally);
        if (typeof call?.function?.arguments === 'string') noteText(call.function.arguments, tally);
      }
    }
  }
}

/**
 * The first text received is the first token (an echoed prompt too); `counted` is what of it is output,
 * and `audio` says it is the transcript of spoken output (counted as audio output, usage-meter.ts).
 */
function noteText(text: string, tally: Tally, counted = text, audio = false): void {
  if (text === '') return;
  if (tally.meter.firstTokenAt === undefined) tally.meter.firstTokenAt = tally.now();
  (audio ? tally.meter.audioTranscriptTally : tally.meter.outputTally).add(counted);
}
