import type { CanonicalToolResultPart } from '../../canonical/canonical-request.js';
import { formatGeminiMedia } from './format-gemini-media.js';
import type { GeminiWirePart } from './format-gemini-model-parts.js';

/**
 * A canonical tool result → a Gemini `functionResponse` part, the inverse of `parseGeminiFunctionResponse`:
 * text that is a JSON object is sent as that object; other text as `{output}`, or `{error}` for a failed
 * call (FunctionResponse.response in @google/genai). Images and files (a PDF) go in `functionResponse.parts`,
 * which only Gemini 3 accepts; for older models they follow as plain parts of the same turn.
 */
export function formatGeminiToolResult(
  result: CanonicalToolResultPart,
  name: string,
  mediaInFunctionResponse: boolean,
  warnings: string[],
): GeminiWirePart[] {
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  const media = result.content.flatMap((part) =>
    part.type === 'image' ? [formatGeminiMedia(part.source, undefined, 'image/jpeg', warnings)] : part.type === 'file' ? [formatGeminiMedia(part.source, part.mediaType, 'application/pdf', warnings)] : [],
  );
  let response: Record<string, unknown>;
  if (result.isError === true) response = { error: text };
  else if (text === '') response = {};
  else response = readJsonObject(text) ?? { output: text };

  const functionResponse = { id: result.toolCallId, name, response };
  if (media.length === 0) return [{ functionResponse }];
  if (mediaInFunctionResponse) return [{ functionResponse: { ...functionResponse, parts: media } }];
  warnings.push(`tool result ${result.toolCallId}: media sent beside the functionResponse (functionResponse.parts needs Gemini 3)`);
  return [{ functionResponse }, ...media];
}

/** The text as a JSON object, unless it could be mistaken for the `{output}` / `{error}` envelope. */
function readJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const keys = Object.keys(value);
    if (keys.length === 0 || (keys.length === 1 && (keys[0] === 'output' || keys[0] === 'error'))) return undefined;
    return value as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
