import type { CanonicalMessage } from '../../canonical/canonical-request.js';
import { formatGeminiModelParts, type GeminiWirePart } from './format-gemini-model-parts.js';
import { formatGeminiToolResult } from './format-gemini-tool-result.js';
import { formatGeminiUserPart } from './format-gemini-user-part.js';

export interface GeminiWireContent {
  role: 'user' | 'model';
  parts: GeminiWirePart[];
}

/**
 * Google documents this value for replaying a function call whose signature was lost or never existed
 * (history from another model): Gemini 3 refuses a `functionCall` turn without one
 * (ai.google.dev/gemini-api/docs/thought-signatures, "FAQ").
 */
const skipSignatureValidator = 'skip_thought_signature_validator';

/**
 * Canonical messages → Gemini `contents`. Tool results become `functionResponse` parts of a user turn,
 * named after their call; consecutive turns of one role are merged, as Gemini expects turns to alternate.
 * Empty text parts are not sent (the model's own, in `formatGeminiModelParts`, unless they carry a signature).
 */
export function formatGeminiContents(messages: CanonicalMessage[], upstreamModel: string, warnings: string[]): GeminiWireContent[] {
  const contents: GeminiWireContent[] = [];
  const callNames = new Map<string, string>();
  const isGemini3 = /gemini-(?:[3-9]|[1-9][0-9])/.test(upstreamModel);
  const append = (role: 'user' | 'model', parts: GeminiWirePart[]) => {
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else if (parts.length > 0) contents.push({ role, parts });
  };

  for (const message of messages) {
    switch (message.role) {
      case 'user':
        // Gemini refuses a part with nothing in it (400 "required oneof field 'data' must have one initialized
        // field"), and Claude Code sends empty text blocks; a turn left with no parts is not sent (`append`).
        append('user', message.content.filter((part) => part.type !== 'text' || part.text !== '').map((part) => formatGeminiUserPart(part, warnings)));
        break;
      case 'assistant': {
        for (const part of message.content) if (part.type === 'tool-call') callNames.set(part.id, part.name);
        const parts = formatGeminiModelParts(message.content, warnings, { destination: 'upstream' });
        if (isGemini3) signFirstFunctionCall(parts, warnings);
        append('model', parts);
        break;
      }
      case 'tool':
        for (const result of message.content) {
          let name = result.name ?? callNames.get(result.toolCallId);
          if (name === undefined) {
            warnings.push(`tool result ${result.toolCallId}: no function name is known; the call id is sent as the name`);
            name = result.toolCallId;
          }
          append('user', formatGeminiToolResult(result, name, isGemini3, warnings));
        }
        break;
      default: {
        const unhandled: never = message;
        throw new Error(`unhandled message ${JSON.stringify(unhandled)}`);
      }
    }
  }
  return contents;
}

function signFirstFunctionCall(parts: GeminiWirePart[], warnings: string[]): void {
  const first = parts.find((part) => part.functionCall !== undefined);
  if (first === undefined || first.thoughtSignature !== undefined) return;
  first.thoughtSignature = skipSignatureValidator;
  warnings.push('a replayed function call had no Gemini thought signature; sent with skip_thought_signature_validator');
}
