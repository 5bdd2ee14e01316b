import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';

export type KlingAction = 'text2video' | 'image2video';

export interface KlingVideoInput {
  /** The client's fields: the unified or Sora-style body, or Kling's native body (carried in `metadata`). */
  fields: Readonly<Record<string, unknown>>;
  prompt: string;
  seconds: number;
  size: string | undefined;
  upstreamModel: string;
}

/** Kling takes these lengths only (protocols.md §3.2). */
const klingDurations = [5, 10];
/** Native fields a client's `metadata` may carry through (Kling's own names). */
const nativeFields = ['negative_prompt', 'cfg_scale', 'mode', 'camera_control', 'aspect_ratio', 'image_tail', 'static_mask', 'dynamic_masks', 'external_task_id'];

/**
 * Pure: Kling's create body (protocols.md §3.2) and which of its two endpoints takes it. A reference image
 * (`image`, else `images[0]` / `input_reference`, else `metadata.image`) makes it image2video; the image
 * goes as a URL or as Base64 without its `data:` prefix. Kling's own fields come from `metadata` (a native
 * route puts the whole native body there); `model_name`, `prompt` and `duration` are always the routed
 * model, the prompt and the length priced, as a string. `aspect_ratio` (text2video only) falls back to
 * `size`. `callback_url` is not sent: Kling would call the client with its own task ids.
 */
export function buildKlingVideoTask(input: KlingVideoInput): { action: KlingAction; body: Record<string, unknown> } {
  if (!klingDurations.includes(input.seconds)) {
    throw new GatewayError('invalid_request', `Invalid 'seconds': Kling makes clips of ${klingDurations.join(' or ')} seconds (got ${input.seconds}).`, { param: 'seconds' });
  }
  const metadata = isRecord(input.fields.metadata) ? input.fields.metadata : {};
  const body: Record<string, unknown> = {};
  for (const name of nativeFields) if (metadata[name] !== undefined) body[name] = metadata[name];
  const image = firstImage(input.fields, metadata);
  const action: KlingAction = image === undefined ? 'text2video' : 'image2video';
  body.model_name = input.upstreamModel;
  body.prompt = input.prompt;
  body.duration = String(input.seconds);
  if (action === 'image2video') {
    body.image = stripDataPrefix(image as string);
    if (typeof body.image_tail === 'string') body.image_tail = stripDataPrefix(body.image_tail);
    delete body.aspect_ratio;
  } else {
    delete body.image_tail;
    if (body.aspect_ratio === undefined) {
      const ratio = aspectRatioOf(input.size);
      if (ratio !== undefined) body.aspect_ratio = ratio;
    }
  }
  return { action, body };
}

function firstImage(fields: Readonly<Record<string, unknown>>, metadata: Record<string, unknown>): string | undefined {
  for (const value of [fields.image, fields.images, fields.input_reference, metadata.image]) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && first !== '') return first;
  }
  return undefined;
}

/** Kling takes raw Base64: a data URI loses its `data:…;base64,` prefix. */
function stripDataPrefix(image: string): string {
  const match = /^data:[^,]*;base64,/i.exec(image);
  return match === null ? image : image.slice(match[0].length);
}

/** `16:9`, `9:16`, `1:1` from a ratio or a size (new-api's mapping); undefined otherwise. */
function aspectRatioOf(size: string | undefined): string | undefined {
  if (size === undefined) return undefined;
  if (size === '16:9' || size === '9:16' || size === '1:1') return size;
  const match = /^(\d{3,4})x(\d{3,4})$/.exec(size);
  if (match === null) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width === height) return '1:1';
  return width > height ? '16:9' : '9:16';
}

/** The HTTP status a Kling error code stands for (its docs: 1000s auth, 1100s account, 1200s request, 1300s policy, 5000s server). */
export function klingErrorStatus(code: number): number {
  if (code >= 1000 && code < 1100) return 401;
  if (code >= 1100 && code < 1200) return 403;
  if (code >= 1200 && code < 1400) return code === 1302 || code === 1303 ? 429 : 400;
  return 500;
}
