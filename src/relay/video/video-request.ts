import { isRecord } from '../../convert/shared/is-record.js';
import { invalidParameter, missingParameter } from '../validate-body.js';

/**
 * Spec §4.9.1 / §4.9.2, pure: what the gateway checks, prices and changes in a video submit, the same for a
 * JSON body and a multipart form (whose fields are all text). Everything it does not name passes through.
 */
export type VideoFields = Readonly<Record<string, unknown>>;

export interface VideoRequest {
  model: string;
  prompt: string;
  /** The clip's length asked for upstream. */
  seconds: number;
  /** The length priced: `seconds`, or 5 for a lip-sync task shorter than that (spec §4.9.5). */
  billedSeconds: number;
  /** Lower-cased (`1280x720`, `720p`); undefined when not given. */
  size: string | undefined;
  /**
   * The price names tried before the model's own, most specific first (video-task-price.ts):
   * `<model>@<size>` (for the domestic channel, which renders tiers, the tier asked for —
   * `metadata.output_config.resolution`, else `size`'s: `<model>@1080p` — after the combined name of what a
   * base model was asked for, `kling-2.6-1080p-audio-offpeak`), then `<model>@<mode>` for `metadata.mode`
   * (Kling's `std` / `pro`).
   */
  priceNames: string[];
  /** Fields to send upstream in place of the client's: `seconds` whenever the client's is not that text. */
  rewrites: Record<string, string>;
}

/** OpenAI's default model and length (protocols.md §4): what an upstream does with a request that names neither. */
export const defaultVideoModel = 'sora-2';
export const defaultVideoSeconds = 4;
/** The domestic channel's families (spec §4.9.5 rule 6) and their default length. */
const domesticFamily = /^(vidu|kling|gv|os|hunyuan|mingmou|hailuo|sv|jv)-/i;
export const defaultDomesticVideoSeconds = 5;
/** The longest clip accepted: above every family's (spec §4.9.5: Kling 10, Grok 15, Sora 20). */
export const maxVideoSeconds = 60;

/**
 * Checks a Sora-style submit (`POST /v1/videos`) and says what to change upstream; throws the 400 the
 * client gets. Length: `seconds`, else `duration` (spec §4.9.2), else `metadata.seconds` / `duration` /
 * `video_duration`, else 4 (5 for the domestic channel's families, §4.9.5); it is always sent as
 * `seconds`, so the length served is the length priced whatever the upstream's own default.
 */
export interface VideoRequestOptions {
  multipart: boolean;
  requireModel: boolean;
  /** The model reaches a Tencent VOD channel (its tiers, its 5-second default) though its name may not say so. */
  servedByVod?: boolean;
  /** Some channel maps the model to a lip-sync one (`…identify-face…`): under 5 s is billed as 5. */
  mapsToLipSync?: boolean;
  /** Some channel maps the model to one whose length is fixed ({@link fixedVideoSeconds}): the longest such. */
  mappedFixedSeconds?: number | undefined;
}

/**
 * Pure: the length a model always makes whatever it is asked (spec §4.9.3: `grok-video-3-pro` 10 s,
 * `grok-video-3-max` 15 s; §4.9.2: a Sora variant named for its length, `sora2-pro-landscape-25s`).
 * Undefined for a model that makes the length asked.
 */
export function fixedVideoSeconds(model: string): number | undefined {
  const name = model.toLowerCase();
  if (name === 'grok-video-3-pro') return 10;
  if (name === 'grok-video-3-max') return 15;
  const named = /^sora.*-(\d{1,2})s$/.exec(name);
  return named === null ? undefined : Number(named[1]);
}

/** Whether a model is of the domestic channel's families, whose tiers price it (spec §4.9.5 rule 6). */
export function isDomesticVideoModel(model: string): boolean {
  return domesticFamily.test(model);
}

export function readVideoRequest(fields: VideoFields, options: VideoRequestOptions): VideoRequest {
  const model = readModel(fields.model, options.requireModel);
  const prompt = fields.prompt;
  if (prompt === undefined || prompt === null) throw missingParameter('prompt');
  if (typeof prompt !== 'string') throw invalidParameter('prompt', `Expected string, received ${typeName(prompt)}`);
  if (prompt.trim() === '') throw invalidParameter('prompt', 'must not be empty');

  const metadata = isRecord(fields.metadata) ? fields.metadata : {};
  const domestic = options.servedByVod === true || isDomesticVideoModel(model);
  // Spec §4.9.5 rule 1: top-level seconds, then duration, then the metadata's, then the family's default.
  // A model of fixed length makes (and is billed) that length whatever was asked; what was asked is still checked.
  const asked =
    readSeconds('seconds', fields.seconds) ??
    readSeconds('duration', fields.duration) ??
    readSeconds('metadata.seconds', metadata.seconds) ??
    readSeconds('metadata.duration', metadata.duration) ??
    readSeconds('metadata.video_duration', metadata.video_duration) ??
    (domestic ? defaultDomesticVideoSeconds : defaultVideoSeconds);
  const fixed = [fixedVideoSeconds(model), options.mappedFixedSeconds].filter((length) => length !== undefined);
  const seconds = fixed.length === 0 ? asked : Math.max(...fixed);
  const lipSync = metadata.scene_type === 'lip_sync' || /identify-face/i.test(model) || options.mapsToLipSync === true;
  const rewrites: Record<string, string> = {};
  if (fields.seconds !== String(seconds)) rewrites.seconds = String(seconds);

  const size = fields.size;
  if (size !== undefined && size !== null && typeof size !== 'string') throw invalidParameter('size', `Expected string, received ${typeName(size)}`);
  if (typeof size === 'string' && !/^[0-9a-zA-Z:*x]{1,32}$/.test(size)) throw invalidParameter('size', 'must be a size such as 1280x720, a tier such as 720P, or a ratio such as 16:9.');
  const givenSize = typeof size === 'string' && size !== '' ? size.toLowerCase() : undefined;
  return {
    model,
    prompt,
    seconds,
    billedSeconds: lipSync ? Math.max(seconds, defaultDomesticVideoSeconds) : seconds,
    size: givenSize,
    priceNames: priceNamesOf(model, metadata, domestic, givenSize),
    rewrites,
  };
}

/** The price names of a request's variants, most specific first (VideoRequest.priceNames). */
export function priceNamesOf(model: string, metadata: Record<string, unknown>, domestic: boolean, size: string | undefined): string[] {
  const names: string[] = [];
  if (domestic) {
    const tier = resolutionTier(configuredResolution(metadata) ?? size);
    const combined = combinedPriceName(model, tier, configuredFlag(metadata, 'audio_generation', 'AudioGeneration'), configuredFlag(metadata, 'off_peak', 'OffPeak') || metadata.offpeak === true);
    // The spec writes combined names in lower case (`kling-2.6-1080p-audio`) whatever the base model's case.
    if (combined !== undefined) names.push(...new Set([combined, combined.toLowerCase()]));
    if (tier !== undefined) names.push(`${model}@${tier}`);
  } else if (size !== undefined) {
    names.push(`${model}@${size}`);
  }
  const mode = metadata.mode;
  if (typeof mode === 'string' && /^[A-Za-z0-9_.-]{1,32}$/.test(mode)) names.push(`${model}@${mode.toLowerCase()}`);
  return names;
}

/**
 * The combined billing name (spec §4.9.5: `kling-2.6-1080p-audio`, `vidu-q2-pro-1080p-offpeak`) of a base
 * model asked for sound or off-peak rendering in its output config: a base model so asked is priced as the
 * combined name when the operator priced that. Undefined when neither is asked (tiers alone are `@1080p`).
 */
function combinedPriceName(model: string, tier: string | undefined, audio: boolean, offpeak: boolean): string | undefined {
  if (!audio && !offpeak) return undefined;
  const words = new Set(model.toLowerCase().split('-'));
  const extra = [tier !== undefined && !/-\d{3,4}p(-|$)/i.test(model) ? tier : undefined, audio && !words.has('audio') ? 'audio' : undefined, offpeak && !words.has('offpeak') ? 'offpeak' : undefined].filter((word) => word !== undefined);
  return extra.length === 0 ? undefined : `${model}-${extra.join('-')}`;
}

/** Whether the output config turns a feature on (`Enabled`, in any case, or true). */
function configuredFlag(metadata: Record<string, unknown>, snake: string, camel: string): boolean {
  const config = isRecord(metadata.output_config) ? metadata.output_config : isRecord(metadata.OutputConfig) ? metadata.OutputConfig : {};
  const value = config[snake] ?? config[camel];
  return value === true || (typeof value === 'string' && value.toLowerCase() === 'enabled');
}

/** `metadata.output_config.resolution` (or Tencent's `Resolution`) when given as text. */
function configuredResolution(metadata: Record<string, unknown>): string | undefined {
  const config = isRecord(metadata.output_config) ? metadata.output_config : isRecord(metadata.OutputConfig) ? metadata.OutputConfig : {};
  const resolution = config.resolution ?? config.Resolution;
  return typeof resolution === 'string' && resolution !== '' ? resolution : undefined;
}

/** A resolution tier, lower-cased: `1080P` → `1080p`, `1920x1080` → `1080p` (the short side); a ratio has none. */
export function resolutionTier(size: string | undefined): string | undefined {
  if (size === undefined) return undefined;
  if (/^\d{3,4}p$/i.test(size)) return size.toLowerCase();
  const match = /^(\d{3,4})[x*](\d{3,4})$/i.exec(size);
  return match === null ? undefined : `${Math.min(Number(match[1]), Number(match[2]))}p`;
}

/**
 * The unified submit (`POST /v1/video/generations`, spec §4.9.1) as the Sora-style JSON body an OpenAI
 * video channel takes: the prompt, `seconds` and `size`, and the first visual reference (`image`, else
 * `images[0]`, else `input_reference`) as `input_reference: {image_url}`. Vendor extras in `metadata` have
 * no place in that API and are not sent.
 */
export function unifiedToOpenaiVideoBody(fields: VideoFields, request: VideoRequest, upstreamModel: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model: upstreamModel, prompt: request.prompt, seconds: String(request.seconds) };
  if (request.size !== undefined) body.size = request.size;
  const reference = firstReference(fields);
  if (reference !== undefined) body.input_reference = { image_url: reference };
  return body;
}

function firstReference(fields: VideoFields): string | undefined {
  for (const value of [fields.image, fields.images, fields.input_reference]) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && first !== '') return first;
  }
  return undefined;
}

function readModel(model: unknown, required: boolean): string {
  if (model === undefined || model === null || model === '') {
    if (required) throw missingParameter('model');
    return defaultVideoModel;
  }
  if (typeof model !== 'string') throw invalidParameter('model', `Expected string, received ${typeName(model)}`);
  return model;
}

/** A whole number of seconds from 1 to 60, written as a number or as decimal digits; undefined when absent. */
function readSeconds(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const seconds = typeof value === 'string' && /^\d{1,3}$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > maxVideoSeconds) {
    throw invalidParameter(name, `must be a whole number of seconds from 1 to ${maxVideoSeconds}.`);
  }
  return seconds;
}

function typeName(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value;
}
