import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { createSseDecoder } from '../../streaming/decode-sse.js';
import { endBrokenStream, type PipeStreamInput, type PipeStreamResult } from '../openai/pipe-openai-stream.js';
import { readOpenaiUsage } from '../openai/read-openai-usage.js';
import { readBodyChunks } from '../read-body-chunks.js';
import { StreamEndedMidAnswer } from '../stream-ended-mid-answer.js';
import { ClientStreamWriter, streamResponseHeaders } from '../write-to-client.js';

/**
 * OpenAI's streamed image generation and editing (`stream: true`, with `partial_images`): events
 * `image_generation.partial_image` / `image_edit.partial_image`, then one `….completed` per image, which
 * carries that image's usage. Relayed event by event as they arrive, with backpressure; only the completed
 * events are parsed (a partial image is megabytes of base64). The meter learns the images delivered (the
 * completed events) and their usage summed; a completed event without usage is billed, as a whole answer
 * without usage is, at the output the reservation assumed per image. A stream that ends before any image
 * completed broke off: the client gets an error event, and only completed images are charged.
 */
export async function pipeImageStream(input: PipeStreamInput & { outputBudgetPerImage: number }): Promise<PipeStreamResult> {
  const { reply, meter } = input;
  const client = new ClientStreamWriter(reply, meter, () => streamResponseHeaders(input.headers));
  let completed = 0;
  let usage: NormalizedUsage | undefined;
  let unreported = 0;

  const decoder = createSseDecoder({
    maxEventBytes: input.maxEventBytes,
    onEvent(event) {
      meter.firstTokenAt ??= input.now();
      client.write(event.event === undefined ? `data: ${event.data}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`);
      if (!isCompletedEvent(event.event, event.data)) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!isRecord(parsed) || typeof parsed.type !== 'string' || !parsed.type.endsWith('.completed')) return;
      completed += 1;
      const reported = readOpenaiUsage(parsed.usage);
      if (reported === undefined) unreported += 1;
      else usage = usage === undefined ? reported : addUsage(usage, reported);
      meter.deliveredCalls = completed;
      if (usage !== undefined) meter.upstreamUsage = usage;
      meter.unreportedOutputTokens = unreported * input.outputBudgetPerImage;
    },
  });

  try {
    const ending = await readBodyChunks(input.body, (chunk) => {
      decoder.push(chunk);
      const drained = client.flushAndDrain();
      return meter.clientAborted ? 'stop' : drained;
    });
    if (ending === 'ended' && !meter.clientAborted) {
      decoder.end();
      if (completed === 0) throw new StreamEndedMidAnswer();
    }
  } catch (error) {
    return endBrokenStream(error, meter, client);
  } finally {
    // Nothing completed, nothing delivered: a per-image price charges none (a token price, the prompt).
    meter.deliveredCalls = completed;
  }
  if (meter.clientAborted) return { kind: 'interrupted', message: 'client disconnected' };
  client.end();
  return { kind: 'completed' };
}

/**
 * Whether an event may be a `….completed` one, without parsing it: by its name, or by its data (base64 has
 * neither `.` nor `"`, so a partial image's data never contains the text searched for).
 */
function isCompletedEvent(name: string | undefined, data: string): boolean {
  return name !== undefined ? name.endsWith('.completed') : data.includes('.completed"');
}

function addUsage(a: NormalizedUsage, b: NormalizedUsage): NormalizedUsage {
  return {
    input: { total: a.input.total + b.input.total, cacheRead: a.input.cacheRead + b.input.cacheRead, cacheWrite: a.input.cacheWrite + b.input.cacheWrite },
    output: { total: a.output.total + b.output.total, reasoning: a.output.reasoning + b.output.reasoning },
  };
}
