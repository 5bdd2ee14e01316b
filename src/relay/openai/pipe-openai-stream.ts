import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { createSseDecoder } from '../../streaming/decode-sse.js';
import type { UsageMeter } from '../usage-meter.js';
import { ClientStreamWriter, sseResponseHeaders } from '../write-to-client.js';
import { readOpenaiUsage } from './read-openai-usage.js';

export interface PipeStreamInput {
  body: Readable;
  reply: FastifyReply;
  /** Headers for the client (request id, channel, attempts), sent with the first event. */
  headers: Record<string, string>;
  meter: UsageMeter;
  /** The client asked for `stream_options.include_usage`; otherwise the usage-only chunk we asked for is dropped. */
  clientWantsUsage: boolean;
  maxEventBytes: number;
  now(): number;
}

export type PipeStreamResult = { kind: 'completed' } | { kind: 'failed_before_first_byte'; message: string } | { kind: 'interrupted'; message: string };

/**
 * OpenAI SSE upstream → OpenAI SSE client, event by event as they arrive, with backpressure. Events are
 * forwarded as the upstream framed their data (no JSON re-serialization). Events are parsed until the
 * first text (the log's first-token time) and whenever they may carry a usage object; the others are only
 * held as text, and parsed for a local count only if the stream ends without upstream usage (bounded:
 * past `heldTextLimit` characters they are counted on the spot). The client's headers go out with the
 * first event, so a stream that fails before producing anything can still be retried on another channel.
 */
export async function pipeOpenaiStream(input: PipeStreamInput): Promise<PipeStreamResult> {
  const { reply, meter } = input;
  const client = new ClientStreamWriter(reply, meter, () => ({ ...sseResponseHeaders, ...input.headers }));
  const write = (text: string) => client.write(text);

  const forward = (event: { event?: string | undefined; data: string }) => write(event.event === undefined ? `data: ${event.data}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`);

  // Chunks not parsed yet: their text is only needed if the upstream never reports usage.
  let held: string[] = [];
  let heldChars = 0;
  const countHeld = () => {
    for (const data of held) tallyData(data, input);
    held = [];
    heldChars = 0;
  };

  const decoder = createSseDecoder({
    maxEventBytes: input.maxEventBytes,
    onEvent(event) {
      if (event.data === '[DONE]') {
        write('data: [DONE]\n\n');
        return;
      }
      if (meter.firstTokenAt !== undefined && !mayCarryUsage(event.data)) {
        held.push(event.data);
        heldChars += event.data.length;
        if (heldChars >= heldTextLimit) countHeld();
        forward(event);
        return;
      }
      let usageOnly = false;
      let chunk: Record<string, unknown> | undefined;
      try {
        chunk = JSON.parse(event.data) as Record<string, unknown>;
      } catch {
        chunk = undefined;
      }
      if (chunk !== undefined) {
        const choices = chunk.choices;
        if (chunk.usage !== undefined && chunk.usage !== null) {
          meter.upstreamUsage = readOpenaiUsage(chunk.usage) ?? meter.upstreamUsage;
          usageOnly = Array.isArray(choices) && choices.length === 0;
        }
        if (Array.isArray(choices)) tallyChoices(choices, input);
      }
      if (!usageOnly || input.clientWantsUsage) forward(event);
    },
  });

  try {
    return await relayEvents();
  } finally {
    // Whatever the ending, a stream the upstream did not report usage for is billed by its text.
    if (meter.upstreamUsage === undefined) countHeld();
  }

  async function relayEvents(): Promise<PipeStreamResult> {
    try {
      for await (const chunk of input.body) {
        decoder.push(chunk as Uint8Array);
        await client.flushAndDrain();
        if (meter.clientAborted) break;
      }
      if (!meter.clientAborted) decoder.end();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (meter.clientAborted) return { kind: 'interrupted', message: 'client disconnected' };
      if (!meter.committed) return { kind: 'failed_before_first_byte', message };
      meter.interruption = `upstream stream interrupted: ${message}`;
      // Tell the client in-band (after the events already decoded): OpenAI SDKs raise an APIError for a data event carrying `error`.
      client.end(`data: ${JSON.stringify({ error: { message: 'The upstream stream was interrupted.', type: 'upstream_error', param: null, code: 'stream_interrupted' } })}\n\n`);
      return { kind: 'interrupted', message };
    }
    if (meter.clientAborted) {
      input.body.destroy();
      return { kind: 'interrupted', message: 'client disconnected' };
    }
    if (!meter.committed) write('');
    client.end();
    return { kind: 'completed' };
  }
}

/** Held events beyond this many characters are counted at once, so a long stream holds no more. */
const heldTextLimit = 256 * 1024;

/**
 * Whether an event may carry a usage object: some `"usage"` key not followed by `null`. A quote inside a
 * JSON string is escaped, so `"usage"` with both quotes bare is a key (or the string value "usage", which
 * errs on the safe side: the event is parsed).
 */
export function mayCarryUsage(data: string): boolean {
  for (let at = data.indexOf('"usage"'); at !== -1; at = data.indexOf('"usage"', at + 7)) {
    let index = at + 7;
    while (data.charCodeAt(index) === 0x20) index += 1;
    if (data.charCodeAt(index) !== 0x3a) return true;
    index += 1;
    while (data.charCodeAt(index) === 0x20) index += 1;
    if (!data.startsWith('null', index)) return true;
  }
  return false;
}

/** The text of a held event, for the local count. */
function tallyData(data: string, input: PipeStreamInput): void {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return;
  }
  const choices = (chunk as { choices?: unknown } | null)?.choices;
  if (Array.isArray(choices)) tallyChoices(choices, input);
}

function tallyChoices(choices: unknown[], input: PipeStreamInput): void {
  for (const choice of choices) {
    if (choice === null || typeof choice !== 'object') continue;
    const { delta, text } = choice as { delta?: Record<string, unknown>; text?: unknown };
    if (typeof text === 'string') noteText(text, input);
    if (delta === undefined || delta === null) continue;
    if (typeof delta.content === 'string') noteText(delta.content, input);
    if (typeof delta.reasoning_content === 'string') noteText(delta.reasoning_content, input);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls as { function?: { name?: unknown; arguments?: unknown } }[]) {
        if (typeof call.function?.name === 'string') noteText(call.function.name, input);
        if (typeof call.function?.arguments === 'string') noteText(call.function.arguments, input);
      }
    }
  }
}

function noteText(text: string, input: PipeStreamInput): void {
  if (text === '') return;
  if (input.meter.firstTokenAt === undefined) input.meter.firstTokenAt = input.now();
  input.meter.outputTally.add(text);
}
