import type { z } from 'zod';
import type { CanonicalFilePart, CanonicalImagePart, CanonicalUserPart } from '../../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import { parseDataUrl } from '../shared/parse-data-url.js';
import { toInvalidWireRequest } from '../shared/to-invalid-wire-request.js';
import {
  openaiResponsesInputFileSchema,
  openaiResponsesInputImageSchema,
  openaiResponsesInputTextSchema,
  openaiResponsesOutputTextSchema,
  type openaiResponsesTypedObjectSchema,
} from './openai-responses-wire-schema.js';

type TypedObject = z.infer<typeof openaiResponsesTypedObjectSchema>;

function parseImage(part: z.infer<typeof openaiResponsesInputImageSchema>): CanonicalImagePart | undefined {
  const url = part.image_url ?? '';
  if (url === '') return undefined;
  const inline = parseDataUrl(url);
  const image: CanonicalImagePart = { type: 'image', source: inline === undefined ? { kind: 'url', url } : { kind: 'base64', ...inline } };
  if (part.detail !== null && part.detail !== undefined) image.detail = part.detail;
  return image;
}

function parseFile(part: z.infer<typeof openaiResponsesInputFileSchema>): CanonicalFilePart | undefined {
  let file: CanonicalFilePart;
  if (part.file_data !== null && part.file_data !== undefined && part.file_data !== '') {
    // OpenAI documents `file_data` as a data URL; a bare base64 string is read as a PDF, the only type it takes.
    const inline = parseDataUrl(part.file_data) ?? { mediaType: 'application/pdf', data: part.file_data };
    file = { type: 'file', source: { kind: 'base64', ...inline }, mediaType: inline.mediaType };
  } else if (part.file_url !== null && part.file_url !== undefined && part.file_url !== '') {
    file = { type: 'file', source: { kind: 'url', url: part.file_url } };
  } else return undefined;
  if (part.filename !== null && part.filename !== undefined) file.filename = part.filename;
  return file;
}

/**
 * One content part of a user message or of a function call output → a canonical user part; undefined (with a
 * warning) for what has no canonical form: uploaded file ids, audio, unknown types.
 */
export function parseOpenaiResponsesContentPart(part: TypedObject, path: string): Converted<CanonicalUserPart | undefined> | InvalidWireRequest {
  switch (part.type) {
    case 'input_text':
    case 'output_text': {
      const parsed = (part.type === 'input_text' ? openaiResponsesInputTextSchema : openaiResponsesOutputTextSchema).safeParse(part);
      if (!parsed.success) return toInvalidWireRequest(parsed.error, path);
      return { value: { type: 'text', text: parsed.data.text }, warnings: [] };
    }
    case 'input_image': {
      const parsed = openaiResponsesInputImageSchema.safeParse(part);
      if (!parsed.success) return toInvalidWireRequest(parsed.error, path);
      const image = parseImage(parsed.data);
      if (image !== undefined) return { value: image, warnings: [] };
      if (parsed.data.file_id == null) return { invalid: true, param: path, message: `Missing required parameter: '${path}.image_url'` };
      return { value: undefined, warnings: [`${path}: an image given by file_id cannot be carried to other API styles; dropped`] };
    }
    case 'input_file': {
      const parsed = openaiResponsesInputFileSchema.safeParse(part);
      if (!parsed.success) return toInvalidWireRequest(parsed.error, path);
      const file = parseFile(parsed.data);
      if (file !== undefined) return { value: file, warnings: [] };
      if (parsed.data.file_id == null) return { invalid: true, param: path, message: `Missing required parameter: '${path}.file_data'` };
      return { value: undefined, warnings: [`${path}: a file given by file_id cannot be carried to other API styles; dropped`] };
    }
    default:
      return { value: undefined, warnings: [`${path}: a ${JSON.stringify(part.type)} part cannot be carried to other API styles; dropped`] };
  }
}
