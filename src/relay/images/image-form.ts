import { FormData, Response } from 'undici';
import { GatewayError } from '../../errors/gateway-error.js';
import { invalidParameter } from '../validate-body.js';
import type { MultipartBody } from '../multipart-body.js';

/** The parts of a multipart form that image requests read. */
export interface ImageForm {
  form: FormData;
  /** Each text field's first value (what `readImageRequest` checks). */
  fields: Record<string, string>;
  /** Image parts (`image`, `image[]`): files, or text (a URL or Base64). */
  images: number;
}

const imageFieldNames = new Set(['image', 'image[]']);

/** The fields the gateway checks and prices: each may be given once, so the request priced is the one served. */
const checkedFields = new Set(['model', 'prompt', 'n', 'size', 'response_format', 'stream']);

/**
 * Parses a multipart body with undici 7's form reader (Node 20's built-in one refuses forms .NET writes:
 * unquoted `name=`, `filename*`); a malformed one is a 400, and so is a checked field given twice (an
 * upstream that reads the last value would serve another request than the one priced).
 */
export async function readImageForm(body: MultipartBody): Promise<ImageForm> {
  let form: FormData;
  try {
    form = await new Response(body.bytes, { headers: { 'content-type': body.contentType } }).formData();
  } catch (error) {
    throw new GatewayError('invalid_request', `Request body is not a valid multipart form: ${(error as Error).message}`);
  }
  const fields: Record<string, string> = {};
  let images = 0;
  for (const [name, value] of form.entries()) {
    if (imageFieldNames.has(name) && (typeof value !== 'string' || value !== '')) images += 1;
    if (checkedFields.has(name) && Object.hasOwn(fields, name)) throw invalidParameter(name, 'must be given once');
    if (typeof value === 'string' && !Object.hasOwn(fields, name)) fields[name] = value;
  }
  return { form, fields, images };
}

/**
 * The form to send upstream: the client's own bytes when nothing changes, else the form re-encoded with
 * the changed fields (each replaces every part of its name, in the first one's place).
 */
export async function encodeImageForm(body: MultipartBody, form: FormData, changes: Readonly<Record<string, string | number>>): Promise<{ bytes: Buffer; contentType: string }> {
  const names = Object.keys(changes);
  if (names.length === 0) return { bytes: body.bytes, contentType: body.contentType };
  const changed = new FormData();
  for (const [name, value] of form.entries()) changed.append(name, value);
  for (const name of names) changed.set(name, String(changes[name]));
  const encoded = new Response(changed);
  return { bytes: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? 'multipart/form-data' };
}
