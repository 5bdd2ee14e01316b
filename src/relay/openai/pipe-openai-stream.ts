import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { createSseDecoder } from '../../streaming/decode-sse.js';
import type { UsageMeter } from '../usage-meter.js';
import { sseResponseHeaders, waitForDrain } from '../write-to-client.js';
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
 * forwarded as the upstream framed their data (no JSON re-serialization); each is parsed once to read
 * usage and count text. The client's headers go out with the first event, so a stream that fails before
 * producing anything can still be retried on another channel.
 */
export async function pipeOpenaiStream(input: PipeStreamInput): Promise<PipeStreamResult> {
  const { reply, meter } = input;
  const response = reply.raw;
  let needsDrain = false;

  const write = (text: string) => {
    if (!meter.committed) {
      meter.committed = true;
      void reply.hijack();
      response.writeHead(200, { ...sseResponseHeaders, ...input.headers });
    }
    if (!response.write(text)) needsDrain = true;
  };

  const decoder = createSseDecoder({
    maxEventBytes: input.maxEventBytes,
    onEvent(event) {
      if (event.data === '[DONE]') {
        write('data: [DONE]\n\n');
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
      if (usageOnly && !input.clientWantsUsage) return;
      write(event.event === undefined ? `data: ${event.data}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`);
    },
  });

  try {
    for await (const chunk of input.body) {
      // One socket write for all the events of an upstream chunk, not one per event.
      response.cork();
      try {
        decoder.push(chunk as Uint8Array);
      } finally {
        response.uncork();
      }
      if (needsDrain) {
        needsDrain = false;
        await waitForDrain(response);
      }
      if (meter.clientAborted) break;
    }
    if (!meter.clientAborted) decoder.end();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (meter.clientAborted) return { kind: 'interrupted', message: 'client disconnected' };
    if (!meter.committed) return { kind: 'failed_before_first_byte', message };
    meter.interruption = `upstream stream interrupted: ${message}`;
    // Tell the client in-band: OpenAI SDKs raise an APIError for a data event carrying `error`.
    response.end(`data: ${JSON.stringify({ error: { message: 'The upstream stream was interrupted.', type: 'upstream_error', param: null, code: 'stream_interrupted' } })}\n\n`);
    return { kind: 'interrupted', message };
  }
  if (meter.clientAborted) {
    input.body.destroy();
    return { kind: 'interrupted', message: 'client disconnected' };
  }
  if (!meter.committed) write('');
  response.end();
  return { kind: 'completed' };
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
