import { estimatedTokensPerImage } from '../count-tokens.js';
import { invalidParameter, missingParameter } from '../validate-body.js';

/**
 * Spec §4.6 / §4.7, pure: what the gateway checks and changes in an image request, the same for a JSON
 * body and a multipart form (whose fields are all text). Everything it does not name passes through.
 */
export type ImageOperation = 'generation' | 'edit';

/** The fields read here, as the client sent them: JSON values, or the text of form fields. */
export type ImageFields = Readonly<Record<string, unknown>>;

export interface ImageRequest {
  model: string;
  prompt: string;
  /**
   * Images asked for: `n`, with missing or 0 meaning 1 (spec §4.6) — or, for a Seedream group
   * (`sequential_image_generation: "auto"`), as many as it may make: `max_images`, 15 unless set.
   */
  images: number;
  /** The output tokens one image of a GPT-image model costs at its quality and size (OpenAI's table); undefined for other models. */
  outputTokensPerImage: number | undefined;
  /**
   * The input tokens one reference image of an edit is reserved (and, without usage, billed) as: the flat
   * image estimate, plus OpenAI's high-fidelity surcharge when a GPT-image edit asks `input_fidelity: "high"`.
   */
  tokensPerReferenceImage: number;
  /** The client asked for partial images as a stream (`stream` in any spelling a form or JSON reader takes as true). */
  stream: boolean;
  /** Fields to send upstream in place of the client's (`n` 0 → 1, `response_format` `base64` → `b64_json`). */
  rewrites: Record<string, string | number>;
}

/** OpenAI's limit on `n` for every image model. */
export const maxImagesPerRequest = 10;

/** When an edit names no model (spec §4.7 says it should not be omitted; OpenAI's edits began with it). */
export const defaultEditModel = 'dall-e-2';

/** Spec §4.6: the two models whose sizes the gateway itself validates. Edits exist only for dall-e-2. */
const sizesByModel: Readonly<Record<string, readonly string[]>> = {
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
  'dall-e-3': ['1024x1024', '1024x1792', '1792x1024'],
};

const responseFormats = ['url', 'b64_json', 'base64'];

/**
 * Checks an image request and says what to change upstream; throws the 400 the client gets. `multipart`:
 * the fields are form text, so `n` is read from its decimal digits.
 */
export function readImageRequest(operation: ImageOperation, fields: ImageFields, multipart: boolean): ImageRequest {
  const model = readModel(operation, fields.model);
  const prompt = fields.prompt;
  if (prompt === undefined || prompt === null) throw missingParameter('prompt');
  if (typeof prompt !== 'string') throw invalidParameter('prompt', `Expected string, received ${typeName(prompt)}`);
  if (prompt.trim() === '') throw invalidParameter('prompt', 'must not be empty');

  const rewrites: Record<string, string | number> = {};
  const asked = readCount(fields.n, multipart);
  if (asked === 0) rewrites.n = 1;

  const size = fields.size;
  if (size !== undefined && size !== null) {
    if (typeof size !== 'string') throw invalidParameter('size', `Expected string, received ${typeName(size)}`);
    const allowed = sizesByModel[model];
    if (allowed !== undefined && !allowed.includes(size)) throw invalidParameter('size', `'${size}' is not one of ${quoteList(allowed)} for ${model}.`);
  }

  const format = fields.response_format;
  if (format !== undefined && format !== null) {
    if (typeof format !== 'string' || !responseFormats.includes(format)) throw invalidParameter('response_format', `must be one of ${quoteList(responseFormats)}.`);
    if (format === 'base64') rewrites.response_format = 'b64_json';
  }
  const images = Math.max(asked === undefined || asked === 0 ? 1 : asked, readGroupSize(fields));
  return {
    model,
    prompt,
    images,
    outputTokensPerImage: gptImageOutputTokens(model, fields.quality, size),
    tokensPerReferenceImage: estimatedTokensPerImage + highFidelityTokens(model, fields.input_fidelity),
    stream: asksToStream(fields.stream),
    rewrites,
  };
}

/**
 * OpenAI's image generation guide ("Input fidelity"): `input_fidelity: "high"` (gpt-image-1, gpt-image-1.5)
 * bills each reference image more image input tokens — 4,160 more for a square one, 6,240 for a portrait or
 * landscape one. The gateway does not read the image's shape, so it takes the larger.
 */
export const highFidelityTokensPerImage = 6240;

function highFidelityTokens(model: string, fidelity: unknown): number {
  return /^gpt-image/i.test(model) && typeof fidelity === 'string' && fidelity.trim().toLowerCase() === 'high' ? highFidelityTokensPerImage : 0;
}

/** Seedream's most images in one group (`sequential_image_generation_options.max_images`), its default too. */
export const maxGroupImages = 15;

/**
 * Seedream group generation: with `sequential_image_generation: "auto"` the upstream makes up to
 * `sequential_image_generation_options.max_images` images (1–15, default 15) whatever `n` says; 1 otherwise.
 */
function readGroupSize(fields: ImageFields): number {
  if (fields.sequential_image_generation !== 'auto') return 1;
  const options = fields.sequential_image_generation_options;
  const max = options !== null && typeof options === 'object' ? (options as Record<string, unknown>).max_images : undefined;
  if (max === undefined || max === null) return maxGroupImages;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > maxGroupImages) {
    throw invalidParameter('sequential_image_generation_options.max_images', `must be a whole number from 1 to ${maxGroupImages}.`);
  }
  return max;
}

/**
 * OpenAI's output tokens for one GPT-image image (its pricing table, per quality: 1024x1024 / 1024x1536 /
 * 1536x1024). `auto` (the default) may be `high`, and `auto` or another size the largest of the row.
 */
const gptImageTokens: Readonly<Record<string, readonly [number, number, number]>> = {
  low: [272, 408, 400],
  medium: [1056, 1584, 1568],
  high: [4160, 6240, 6208],
};

function gptImageOutputTokens(model: string, quality: unknown, size: unknown): number | undefined {
  if (!/^gpt-image/i.test(model)) return undefined;
  const row = gptImageTokens[typeof quality === 'string' && quality in gptImageTokens ? quality : 'high']!;
  if (size === '1024x1024') return row[0];
  if (size === '1024x1536') return row[1];
  if (size === '1536x1024') return row[2];
  return Math.max(...row);
}

/** Any spelling an upstream's form or JSON reader could take for true (`True`, `1`, `on`, a non-zero number). */
function asksToStream(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value === 'number') return value !== 0;
  return typeof value === 'string' && truthyTexts.has(value.trim().toLowerCase());
}

const truthyTexts = new Set(['true', '1', 't', 'on', 'yes', 'y']);

function readModel(operation: ImageOperation, model: unknown): string {
  if (model === undefined || model === null) {
    if (operation === 'edit') return defaultEditModel;
    throw missingParameter('model');
  }
  if (typeof model !== 'string') throw invalidParameter('model', `Expected string, received ${typeName(model)}`);
  if (model === '') throw invalidParameter('model', 'model must not be empty');
  return model;
}

/** `n`: undefined when not given; a whole number from 0 to 10 otherwise. */
function readCount(value: unknown, multipart: boolean): number | undefined {
  if (value === undefined || value === null) return undefined;
  const count = multipart && typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > maxImagesPerRequest) {
    throw invalidParameter('n', `must be a whole number from 1 to ${maxImagesPerRequest} (0 means 1).`);
  }
  return count;
}

function quoteList(values: readonly string[]): string {
  return `[${values.map((value) => `'${value}'`).join(', ')}]`;
}

function typeName(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value;
}

