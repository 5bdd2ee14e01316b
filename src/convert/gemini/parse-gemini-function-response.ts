import type { CanonicalToolResultPart } from '../../canonical/canonical-request.js';
import type { GeminiFunctionResponse } from './gemini-wire-schema.js';
import { isGeminiFileUri } from './is-gemini-file-uri.js';

/**
 * A Gemini `functionResponse` → a canonical tool result. Gemini's `response` is an object; its documented
 * convention (FunctionResponse.response in @google/genai) is an `output` key for the result and an `error`
 * key for a failure, which become the text and `isError`. Any other object is kept whole as JSON text.
 * Media in `parts` (Gemini 3) become images, or files (a PDF); a Gemini Files API URI cannot be carried.
 */
export function parseGeminiFunctionResponse(
  functionResponse: GeminiFunctionResponse,
  toolCallId: string,
  name: string,
  warnings: string[],
): CanonicalToolResultPart {
  const content: CanonicalToolResultPart['content'] = [];
  const response = functionResponse.response;
  const keys = response === undefined ? [] : Object.keys(response);
  let isError = false;
  if (response !== undefined && keys.length === 1 && (keys[0] === 'output' || keys[0] === 'error')) {
    isError = keys[0] === 'error';
    const value = isError ? response.error : response.output;
    content.push({ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) });
  } else if (response !== undefined && keys.length > 0) {
    content.push({ type: 'text', text: JSON.stringify(response) });
  }
  for (const part of functionResponse.parts ?? []) {
    const { inlineData, fileData } = part;
    if (inlineData !== undefined) {
      const source = { kind: 'base64' as const, mediaType: inlineData.mimeType, data: inlineData.data };
      content.push(inlineData.mimeType.startsWith('image/') ? { type: 'image', source } : { type: 'file', source, mediaType: inlineData.mimeType });
    } else if (fileData !== undefined && !isGeminiFileUri(fileData.fileUri)) {
      const source = { kind: 'url' as const, url: fileData.fileUri };
      content.push(fileData.mimeType?.startsWith('image/') === true ? { type: 'image', source } : { type: 'file', source, ...(fileData.mimeType === undefined ? {} : { mediaType: fileData.mimeType }) });
    } else {
      warnings.push(`functionResponse ${name}: a media part that cannot be carried in a tool result (a file only Gemini can read) was dropped`);
    }
  }
  return { type: 'tool-result', toolCallId, name, content, ...(isError ? { isError } : {}) };
}
