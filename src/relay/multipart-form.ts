import { FormData, Response } from 'undici';
import { GatewayError } from '../errors/gateway-error.js';
import { invalidParameter } from './validate-body.js';
import type { MultipartBody } from './multipart-body.js';

/** A multipart form as the routes that take one (image edits, video submits) read it. */
export interface MultipartForm {
  form: FormData;
  /** Each text field's first value (what the route checks). */
  fields: Record<string, string>;
}

/**
 * Parses a multipart body with undici 7's form reader (Node 20's built-in one refuses forms .NET writes:
 * unquoted `name=`, `filename*`); a malformed one is a 400, and so is a `checked` field given twice (an
 * upstream that reads the last value would serve another request than the one priced).
 */
export async function readMultipartForm(body: MultipartBody, checkedFields: ReadonlySet<string>): Promise<MultipartForm> {
  let form: FormData;
  try {
    form = await new Response(body.bytes, { headers: { 'content-type': body.contentType } }).formData();
  } catch (error) {
    throw new GatewayError('invalid_request', `Request body is not a valid multipart form: ${(error as Error).message}`);
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of form.entries()) {
    if (checkedFields.has(name) && Object.hasOwn(fields, name)) throw invalidParameter(name, 'must be given once');
    if (typeof value === 'string' && !Object.hasOwn(fields, name)) fields[name] = value;
  }
  return { form, fields };
}

/**
 * The form to send upstream: the client's own bytes when nothing changes, else the form re-encoded with
 * the changed fields (each replaces every part of its name, in the first one's place).
 */
export async function encodeMultipartForm(body: MultipartBody, form: FormData, changes: Readonly<Record<string, string | number>>): Promise<{ bytes: Buffer; contentType: string }> {
  const names = Object.keys(changes);
  if (names.length === 0) return { bytes: body.bytes, contentType: body.contentType };
  const changed = new FormData();
  for (const [name, value] of form.entries()) changed.append(name, value);
  for (const name of names) changed.set(name, String(changes[name]));
  const encoded = new Response(changed);
  return { bytes: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? 'multipart/form-data' };
}
