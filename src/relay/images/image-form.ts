import { GatewayError } from '../../errors/gateway-error.js';
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

/** Parses a multipart body (the platform's own parser, as `fetch` reads forms); a malformed one is a 400. */
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
