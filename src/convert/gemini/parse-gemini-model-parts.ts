import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import type { GeminiPart } from './gemini-wire-schema.js';
import { parseGeminiThoughtSignature } from './map-gemini-thought-signature.js';
import { readThoughtSignature } from './read-thought-signature.js';
import { toReasoningFields } from '../shared/map-opaque-reasoning.js';

/**
 * The parts of a Gemini `model` turn → canonical assistant parts.
 *
 * Thought signatures (ai.google.dev/gemini-api/docs/thought-signatures) sit on any part. Canonically a
 * signature belongs to a reasoning part, like Anthropic's thinking signature:
 * - on a thought part, it is that reasoning's signature; consecutive thought parts form one reasoning
 *   until one carries a signature (streamed thoughts arrive one part per chunk);
 * - on any other part, it signs the reasoning just before it when that one has none, else it becomes an
 *   empty reasoning part of its own, placed before the part that carried it.
 * A signature that carries redacted reasoning (map-gemini-thought-signature.ts) sets `redactedData` instead.
 * `formatGeminiModelParts` writes them back where Gemini expects them.
 */
export function parseGeminiModelParts(
  parts: GeminiPart[],
  /** An id for a call Gemini sent without one; `ordinal` counts the calls of these parts from 0. */
  idForCall: (ordinal: number) => string,
  warnings: string[],
): CanonicalAssistantPart[] {
  const content: CanonicalAssistantPart[] = [];
  let calls = 0;
  const lastReasoningWithoutSignature = () => {
    const last = content.at(-1);
    return last?.type === 'reasoning' && last.signature === undefined && last.redactedData === undefined ? last : undefined;
  };

  for (const part of parts) {
    const wireSignature = readThoughtSignature(part);
    const signature = wireSignature === undefined ? undefined : toReasoningFields(parseGeminiThoughtSignature(wireSignature));
    if (part.thought === true) {
      if (part.text === undefined) warnings.push('model turn: a thought part without text (thought media) was dropped');
      const open = lastReasoningWithoutSignature();
      if (open !== undefined) {
        open.text += part.text ?? '';
        if (signature !== undefined) Object.assign(open, signature);
      } else {
        content.push({ type: 'reasoning', text: part.text ?? '', ...signature });
      }
      continue;
    }
    if (signature !== undefined) {
      const open = lastReasoningWithoutSignature();
      if (open !== undefined) Object.assign(open, signature);
      else content.push({ type: 'reasoning', text: '', ...signature });
    }
    if (part.functionCall !== undefined) {
      const call = part.functionCall;
      if (call.name === undefined) warnings.push('model turn: a functionCall without a name was kept with an empty name');
      const ordinal = calls++;
      content.push({ type: 'tool-call', id: call.id ?? idForCall(ordinal), name: call.name ?? '', arguments: JSON.stringify(call.args ?? {}) });
    } else if (part.text !== undefined) {
      if (part.text !== '') content.push({ type: 'text', text: part.text });
    } else if (part.inlineData !== undefined || part.fileData !== undefined) {
      warnings.push('model turn: generated media (inlineData/fileData) has no canonical form and was dropped');
    } else if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) {
      warnings.push('model turn: code execution parts (executableCode/codeExecutionResult) were dropped');
    } else if (part.functionResponse !== undefined) {
      warnings.push('model turn: a functionResponse inside a model turn was dropped');
    }
  }
  return content;
}
