import { addImages, type NormalizedUsage } from '../../billing/normalized-usage.js';
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
 * them image output, unless `output_tokens_details` splits them (newer gpt-image models): its
 * `image_tokens` are the image output; without them, what its `text_tokens` leave.
 */
export function readImageUsage(usage: unknown): NormalizedUsage | undefined {
  const read = readOpenaiUsage(usage);
  if (read === undefined || (read.input.total === 0 && read.output.total === 0)) return undefined;
  const details = outputDetailsOf(usage);
  if (typeof details.image_tokens !== 'number') addImages(read, 0, read.output.total - textTokensOf(details));
  return read;
}

function outputDetailsOf(usage: unknown): { image_tokens?: unknown; text_tokens?: unknown } {
  const details = (usage as { output_tokens_details?: unknown }).output_tokens_details;
  return details !== null && typeof details === 'object' ? details : {};
}

/** The text share an answer reported, when it is a count (else none: every output token is image). */
function textTokensOf(details: { text_tokens?: unknown }): number {
  const text = details.text_tokens;
  return typeof text === 'number' && Number.isFinite(text) && text > 0 ? text : 0;
}
