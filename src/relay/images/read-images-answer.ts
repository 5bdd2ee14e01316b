import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import { readOpenaiUsage } from '../openai/read-openai-usage.js';

/** What billing needs from an Images API answer. */
export interface ImagesAnswer {
  /** How many images it holds (its `data` array); undefined when the answer is not such a document. */
  images: number | undefined;
  /** Its `usage` object (gpt-image models report tokens), as sent. */
  usage: unknown;
  /** The answer is an error document (`{"error": …}` and no `data`), whatever its HTTP status said. */
  failed: boolean;
}

/**
 * Reads an Images API answer once (it can be megabytes of base64): the count of images delivered, so a
 * per-image price charges what came back, and the token usage for token-priced models.
 */
export function readImagesAnswer(answer: Buffer): ImagesAnswer {
  let document: unknown;
  try {
    document = JSON.parse(answer.toString('utf8'));
  } catch {
    return { images: undefined, usage: undefined, failed: false };
  }
  if (document === null || typeof document !== 'object') return { images: undefined, usage: undefined, failed: false };
  const { data, usage, error } = document as { data?: unknown; usage?: unknown; error?: unknown };
  const images = Array.isArray(data) ? data.length : undefined;
  return { images, usage, failed: images === undefined && error !== null && typeof error === 'object' };
}

/**
 * An image answer's `usage` as normalized usage; undefined when there is none — or when it counts nothing
 * at all (`{}`), which no image that was made can cost: such an image is billed as one without usage.
 * Its `output_tokens` are "the number of image tokens in the output image" (OpenAI's ImagesUsage): all of
 * them image output, unless `output_tokens_details.image_tokens` splits them (newer gpt-image models).
 */
export function readImageUsage(usage: unknown): NormalizedUsage | undefined {
  const read = readOpenaiUsage(usage);
  if (read === undefined || (read.input.total === 0 && read.output.total === 0)) return undefined;
  if (read.output.image === undefined && !reportsImageOutput(usage) && read.output.total > 0) read.output.image = read.output.total;
  return read;
}

function reportsImageOutput(usage: unknown): boolean {
  const details = (usage as { output_tokens_details?: unknown }).output_tokens_details;
  return details !== null && typeof details === 'object' && typeof (details as { image_tokens?: unknown }).image_tokens === 'number';
}
