import { sumUsage, type NormalizedUsage } from '../../billing/normalized-usage.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { createSseDecoder } from '../../streaming/decode-sse.js';
import { endBrokenStream, type PipeStreamInput, type PipeStreamResult } from '../openai/pipe-openai-stream.js';
import { readImageUsage } from './read-images-answer.js';
import { readBodyChunks } from '../read-body-chunks.js';
import { StreamEndedMidAnswer } from '../stream-ended-mid-answer.js';
import type { UsageMeter } from '../usage-meter.js';
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
  meter.stream?.open(client);
  const images = new CompletedImages(input.outputBudgetPerImage);

  const decoder = createSseDecoder({
    maxEventBytes: input.maxEventBytes,
    onEvent(event) {
      meter.firstTokenAt ??= input.now();
      client.write(event.event === undefined ? `data: ${event.data}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`);
      if (images.read(event.data)) images.applyTo(meter);
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
      if (images.completed === 0) throw new StreamEndedMidAnswer();
    }
  } catch (error) {
    return endBrokenStream(error, meter, client);
  } finally {
    // Nothing completed, nothing delivered: a per-image price charges none (a token price, the prompt).
    meter.deliveredCalls = images.completed;
  }
  if (meter.clientAborted) return { kind: 'interrupted', message: 'client disconnected' };
  client.end();
  return { kind: 'completed' };
}

/**
 * Whether an event may be a `….completed` one, without parsing it: by its data, whatever its name (SDKs go
 * by the data's `type`; base64 has neither `.` nor `"`, so a partial image's data never contains the text
 * searched for).
 */
function isCompletedEvent(data: string): boolean {
  return data.includes('.completed"');
}

/**
 * The completed images of an image stream and what they cost: each `….completed` event is one image
 * delivered; their usages are summed, and an image without usage costs the output budget, whether or not
 * others reported theirs.
 */
export class CompletedImages {
  completed = 0;
  private usage: NormalizedUsage | undefined;
  private unreported = 0;

  constructor(private readonly outputBudgetPerImage: number) {}

  /** Reads one event's data; true when it was a completed image. */
  read(data: string): boolean {
    if (!isCompletedEvent(data)) return false;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return false;
    }
    if (!isRecord(parsed) || typeof parsed.type !== 'string' || !parsed.type.endsWith('.completed')) return false;
    this.completed += 1;
    const reported = readImageUsage(parsed.usage);
    if (reported === undefined) this.unreported += 1;
    else this.usage = this.usage === undefined ? reported : sumUsage(this.usage, reported);
    return true;
  }

  applyTo(meter: UsageMeter): void {
    meter.deliveredCalls = this.completed;
    const budget = this.unreported * this.outputBudgetPerImage;
    // The budget of an image without usage is image output, as the reported images' output is.
    if (this.usage !== undefined) {
      const output = { ...this.usage.output, total: this.usage.output.total + budget };
      if (budget > 0) output.image = (output.image ?? 0) + budget;
      meter.upstreamUsage = { input: this.usage.input, output };
    }
    else meter.unreportedOutputTokens = budget;
  }
}

/**
 * The completed images of a whole answer that is an image stream though it was not labelled as one (read
 * as a whole answer): undefined when the bytes are not SSE events.
 */
export function completedImagesIn(answer: Buffer, outputBudgetPerImage: number, maxEventBytes: number): CompletedImages | undefined {
  const start = answer.subarray(0, 16).toString('latin1').trimStart();
  if (!start.startsWith('event:') && !start.startsWith('data:')) return undefined;
  const images = new CompletedImages(outputBudgetPerImage);
  const decoder = createSseDecoder({ maxEventBytes, onEvent: (event) => void images.read(event.data) });
  try {
    decoder.push(answer);
    decoder.end();
  } catch {
    return undefined;
  }
  return images;
}
