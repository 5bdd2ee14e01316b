import { isRecord } from '../../convert/shared/is-record.js';
import type { TextStyleName } from '../text-style.js';

/**
 * Google's image tokens for one picture of Gemini 2.5 Flash Image (any size up to 1024px), and the count
 * assumed for an image-output model the table below does not name.
 */
export const flashImagePictureTokens = 1290;

/**
 * Google's image tokens per picture by `imageConfig.imageSize` (ai.google.dev pricing and Vertex AI's model
 * pages): gemini-3-pro-image 1K and 2K 1,120, 4K 2,000; gemini-3.1-flash-image 512 747, 1K 1,120, 2K 1,680,
 * 4K 2,520 (the gateway sends its larger sizes as 1K: build-text-inbound.ts, but an upstream reached through
 * another channel's name may make them). An unnamed size is 1K, Google's default.
 */
const picturesBySize: readonly { model: RegExp; bySize: Readonly<Record<string, number>>; otherwise: number }[] = [
  { model: /gemini-3(\.\d+)?-pro-image/i, bySize: { '1K': 1120, '2K': 1120, '4K': 2000 }, otherwise: 2000 },
  { model: /gemini-3\.\d+-flash-image/i, bySize: { '512': 747, '1K': 1120, '2K': 1680, '4K': 2520 }, otherwise: 2520 },
];

/** A Gemini model named for images (`gemini-2.5-flash-image`, `gemini-2.0-flash-preview-image-generation`, `google/gemini-3-pro-image-preview`). */
const geminiImageModel = /gemini-[^/]*image/i;

export interface PictureOutputQuestion {
  style: TextStyleName;
  body: Record<string, unknown>;
  /** The model names the request may reach: the client's, and what each channel that may serve it maps it to. */
  models: readonly string[];
  /** The model's price sets `image_output`: the catalog says the model writes images. */
  pricedImageOutput: boolean;
}

type PictureTable = (typeof picturesBySize)[number];

/** What a request's model names say of its pictures: the size tables they match, and a Gemini image name none does. */
export interface PictureModels {
  tables: readonly PictureTable[];
  named: boolean;
}

/** Pure: the picture facts of the names a request may reach (the same for every request to that model and group: callers keep it). */
export function readPictureModels(models: readonly string[]): PictureModels {
  const tables: PictureTable[] = [];
  let named = false;
  for (const model of models) {
    const table = picturesBySize.find((row) => row.model.test(model));
    if (table !== undefined) tables.push(table);
    else if (geminiImageModel.test(model)) named = true;
  }
  return { tables, named };
}

/**
 * Pure: the image tokens of one picture a request may be answered with, for the reservation; 0 for a model
 * that writes no images. Gemini's image models write a picture whatever `maxOutputTokens` says (a picture
 * is ~1,290 tokens), so a client's small limit alone would reserve a fraction of what the picture is
 * billed, and the charge above a reservation is taken only as far as the balances cover. A model writes
 * images when its name says so (a Gemini `…image…` model), its price sets `image_output`, or a Gemini
 * request asks for them (`responseModalities` with `IMAGE`). The size is read from a Gemini request's
 * `imageConfig.imageSize`; other styles carry none (1K).
 */
export function computePictureOutputTokens(question: PictureOutputQuestion): number {
  return pictureOutputTokens(readPictureModels(question.models), question.style, question.body, question.pricedImageOutput);
}

/** computePictureOutputTokens with the names read already (readPictureModels). */
export function pictureOutputTokens(pictures: PictureModels, style: TextStyleName, body: Record<string, unknown>, pricedImageOutput: boolean): number {
  // Most requests: no image model, no image price, not a Gemini body that could ask for images.
  if (pictures.tables.length === 0 && !pictures.named && !pricedImageOutput && style !== 'gemini') return 0;
  const config = style === 'gemini' ? generationConfigOf(body) : undefined;
  const asksImages = config !== undefined && asksForImages(config.responseModalities ?? config.response_modalities);
  const size = config !== undefined ? imageSizeOf(config.imageConfig ?? config.image_config) : undefined;
  let most = pictures.named ? flashImagePictureTokens : 0;
  for (const table of pictures.tables) most = Math.max(most, size === undefined ? table.bySize['1K']! : (table.bySize[size] ?? table.otherwise));
  if (most === 0 && (asksImages || pricedImageOutput)) return flashImagePictureTokens;
  return most;
}

function generationConfigOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const config = body.generationConfig ?? body.generation_config;
  return isRecord(config) ? config : undefined;
}

function asksForImages(modalities: unknown): boolean {
  return Array.isArray(modalities) && modalities.some((modality) => typeof modality === 'string' && modality.toUpperCase() === 'IMAGE');
}

function imageSizeOf(imageConfig: unknown): string | undefined {
  if (!isRecord(imageConfig)) return undefined;
  const size = imageConfig.imageSize ?? imageConfig.image_size;
  return typeof size === 'string' ? size.toUpperCase() : undefined;
}
