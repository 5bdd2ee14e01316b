import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';

/** What the gateway read of a submit (relay/video/video-request.ts) that a VOD task needs. */
export interface AigcVideoInput {
  /** The client's fields (JSON body), for the references and `metadata`. */
  fields: Readonly<Record<string, unknown>>;
  prompt: string;
  seconds: number;
  size: string | undefined;
  /** The model the client named: a combined billing name's parts (`1080p`, `audio`, `offpeak`) are asked for. */
  clientModel: string;
  /** The upstream model, `Family-Version` (`Kling-2.6`, `Vidu-q2-pro`). */
  upstreamModel: string;
  subAppId: number;
  /** A de-duplication key Tencent keeps for 3 days: the task's public id. */
  sessionId: string;
}

/** OutputConfig keys as the spec writes them (snake_case) → Tencent's UpperCamelCase. */
const outputConfigNames: Record<string, string> = {
  storage_mode: 'StorageMode',
  media_name: 'MediaName',
  class_id: 'ClassId',
  expire_time: 'ExpireTime',
  duration: 'Duration',
  resolution: 'Resolution',
  aspect_ratio: 'AspectRatio',
  audio_generation: 'AudioGeneration',
  person_generation: 'PersonGeneration',
  input_compliance_check: 'InputComplianceCheck',
  output_compliance_check: 'OutputComplianceCheck',
  enhance_switch: 'EnhanceSwitch',
  frame_interpolate: 'FrameInterpolate',
  logo_add: 'LogoAdd',
  off_peak: 'OffPeak',
  enable_bgm: 'EnableBGM',
};

/** FileInfos element keys, as written in lower case or snake_case → Tencent's names. */
const fileInfoNames: Record<string, string> = {
  type: 'Type',
  category: 'Category',
  fileid: 'FileId',
  file_id: 'FileId',
  url: 'Url',
  usage: 'Usage',
  referencetype: 'ReferenceType',
  reference_type: 'ReferenceType',
  objectid: 'ObjectId',
  object_id: 'ObjectId',
  voiceid: 'VoiceId',
  voice_id: 'VoiceId',
  keeporiginalsound: 'KeepOriginalSound',
  keep_original_sound: 'KeepOriginalSound',
  text: 'Text',
};

/** At most this many input files per task (spec §4.9.5). */
export const maxVodFileInfos = 3;

/**
 * Pure: the body of VOD's `CreateAigcVideoTask` (protocols.md §5.2) for a unified or Sora-style submit
 * (spec §4.9.5): the model split at its first `-` into ModelName / ModelVersion; `image` as the first
 * frame, `images` and `input_reference` as references, `metadata.video_url` as a reference video, and
 * `metadata.file_infos` (lower-case names accepted) — at most 3 in all, by URL or by VOD file id (a
 * `data:` URI is refused: VOD takes only reachable URLs or file ids); `metadata.last_frame_url` /
 * `last_frame_file_id`, `scene_type`, `ext_info`; `metadata.output_config` in either case, with
 * `Duration` always the seconds priced (rule 5) and `Resolution` / `AspectRatio` from `size` when the
 * config does not name them. Throws the 400 the client gets.
 */
export function buildAigcVideoTask(input: AigcVideoInput): Record<string, unknown> {
  const split = input.upstreamModel.indexOf('-');
  if (split <= 0 || split === input.upstreamModel.length - 1) {
    throw new GatewayError('invalid_request', `Model ${input.upstreamModel} cannot be sent to a Tencent VOD channel: it needs a Family-Version name such as Kling-2.6.`, { param: 'model' });
  }
  const metadata = isRecord(input.fields.metadata) ? input.fields.metadata : {};
  const fileInfos = [
    ...urlInputs(input.fields.image, 'image', 'Image', 'FirstFrame'),
    ...urlInputs(input.fields.images, 'images', 'Image', 'Reference'),
    ...urlInputs(input.fields.input_reference, 'input_reference', 'Image', 'Reference'),
    ...urlInputs(metadata.video_url, 'metadata.video_url', 'Video', 'Reference'),
    ...explicitFileInfos(metadata.file_infos ?? metadata.FileInfos),
  ];
  if (fileInfos.length > maxVodFileInfos) throw new GatewayError('invalid_request', `Invalid 'metadata.file_infos': at most ${maxVodFileInfos} input files per task (got ${fileInfos.length}).`, { param: 'metadata.file_infos' });

  const body: Record<string, unknown> = {
    SubAppId: input.subAppId,
    ModelName: input.upstreamModel.slice(0, split),
    ModelVersion: input.upstreamModel.slice(split + 1),
    Prompt: input.prompt,
    OutputConfig: outputConfig(metadata, input.seconds, input.size, combinedNameParts(input.clientModel)),
    SessionId: input.sessionId,
  };
  if (fileInfos.length > 0) body.FileInfos = fileInfos;
  copyString(metadata, 'last_frame_url', body, 'LastFrameUrl');
  copyString(metadata, 'last_frame_file_id', body, 'LastFrameFileId');
  copyString(metadata, 'scene_type', body, 'SceneType');
  copyString(metadata, 'ext_info', body, 'ExtInfo');
  copyString(metadata, 'negative_prompt', body, 'NegativePrompt');
  return body;
}

function urlInputs(value: unknown, param: string, category: 'Image' | 'Video', usage: string): Record<string, unknown>[] {
  if (value === undefined || value === null || value === '') return [];
  const values = Array.isArray(value) ? value : [value];
  return values.map((item) => {
    if (typeof item !== 'string' || item === '') throw new GatewayError('invalid_request', `Invalid '${param}': expected a URL or a VOD file id.`, { param });
    if (/^data:/i.test(item)) throw new GatewayError('invalid_request', `Invalid '${param}': a Tencent VOD channel takes reachable http(s) URLs or file ids, not data: URIs; upload the file first (POST /api/upload/presign).`, { param });
    return /^https?:\/\//i.test(item) ? { Type: 'Url', Category: category, Url: item, Usage: usage } : { Type: 'File', Category: category, FileId: item, Usage: usage };
  });
}

function explicitFileInfos(value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new GatewayError('invalid_request', `Invalid 'metadata.file_infos': expected an array.`, { param: 'metadata.file_infos' });
  return value.map((item) => {
    if (!isRecord(item)) throw new GatewayError('invalid_request', `Invalid 'metadata.file_infos': each item must be an object.`, { param: 'metadata.file_infos' });
    const info: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(item)) info[fileInfoNames[name.toLowerCase()] ?? name] = field;
    if (info.Type === 'Url' && typeof info.Url !== 'string') throw new GatewayError('invalid_request', `Invalid 'metadata.file_infos': Type Url needs Url.`, { param: 'metadata.file_infos' });
    if (info.Type === 'File' && typeof info.FileId !== 'string') throw new GatewayError('invalid_request', `Invalid 'metadata.file_infos': Type File needs FileId.`, { param: 'metadata.file_infos' });
    return info;
  });
}

/**
 * What a combined billing name (spec §4.9.5: `kling-2.6-1080p-audio`, `vidu-q2-pro-1080p-offpeak`) prices,
 * as OutputConfig fields: its resolution tier, sound, off-peak.
 */
function combinedNameParts(model: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const word of model.toLowerCase().split('-')) {
    if (/^\d{3,4}p$/.test(word)) parts.Resolution = word.toUpperCase();
    if (word === 'audio') parts.AudioGeneration = 'Enabled';
    if (word === 'offpeak') parts.OffPeak = 'Enabled';
  }
  return parts;
}

function outputConfig(metadata: Record<string, unknown>, seconds: number, size: string | undefined, named: Record<string, string>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const given = isRecord(metadata.output_config) ? metadata.output_config : isRecord(metadata.OutputConfig) ? metadata.OutputConfig : {};
  for (const [name, value] of Object.entries(given)) config[outputConfigNames[name] ?? outputConfigNames[snakeCase(name)] ?? name] = value;
  // What the model's name was priced for is what is made: a config that says otherwise is refused.
  for (const [name, value] of Object.entries(named)) {
    const asked = config[name];
    if (asked !== undefined && String(asked).toUpperCase() !== value.toUpperCase()) {
      throw new GatewayError('invalid_request', `Invalid 'metadata.output_config': ${name} ${String(asked)} conflicts with the model's name, which is priced for ${value}.`, { param: 'metadata.output_config' });
    }
    config[name] = value;
  }
  // Rule 5: the length asked for is the length priced.
  config.Duration = seconds;
  const fromSize = sizeHints(size);
  if (config.Resolution === undefined && fromSize.resolution !== undefined) config.Resolution = fromSize.resolution;
  if (config.AspectRatio === undefined && fromSize.aspectRatio !== undefined) config.AspectRatio = fromSize.aspectRatio;
  if (metadata.offpeak === true && config.OffPeak === undefined) config.OffPeak = 'Enabled';
  return config;
}

/** `720p` → 720P; `16:9` → that ratio; `1280x720` → 720P and 16:9 (the short side is the tier). */
function sizeHints(size: string | undefined): { resolution?: string; aspectRatio?: string } {
  if (size === undefined) return {};
  if (/^\d{3,4}p$/i.test(size)) return { resolution: size.toUpperCase() };
  if (/^\d{1,2}:\d{1,2}$/.test(size)) return { aspectRatio: size };
  const match = /^(\d{3,4})[x*](\d{3,4})$/i.exec(size);
  if (match === null) return {};
  const width = Number(match[1]);
  const height = Number(match[2]);
  const divisor = gcd(width, height);
  return { resolution: `${Math.min(width, height)}P`, aspectRatio: `${width / divisor}:${height / divisor}` };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function copyString(from: Record<string, unknown>, name: string, to: Record<string, unknown>, as: string): void {
  const value = from[name];
  if (typeof value === 'string' && value !== '') to[as] = value;
}
