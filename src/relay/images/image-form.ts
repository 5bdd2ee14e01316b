import type { MultipartBody } from '../multipart-body.js';
import { readMultipartForm, type MultipartForm } from '../multipart-form.js';

/** The parts of a multipart form that image requests read. */
export interface ImageForm extends MultipartForm {
  /** Image parts (`image`, `image[]`): files, or text (a URL or Base64). */
  images: number;
}

const imageFieldNames = new Set(['image', 'image[]']);

/** The fields the gateway checks and prices: each may be given once, so the request priced is the one served. */
const checkedFields = new Set(['model', 'prompt', 'n', 'size', 'response_format', 'stream', 'input_fidelity', 'quality']);

/** An image edit's form (multipart-form.ts), with its image parts counted. */
export async function readImageForm(body: MultipartBody): Promise<ImageForm> {
  const { form, fields } = await readMultipartForm(body, checkedFields);
  let images = 0;
  for (const [name, value] of form.entries()) {
    if (imageFieldNames.has(name) && (typeof value !== 'string' || value !== '')) images += 1;
  }
  return { form, fields, images };
}
