import type { GeminiResponse } from './gemini-wire-schema.js';

/**
 * Pure: the text of one chunk's candidates after the first (`candidateCount` > 1), which no canonical part
 * carries but the upstream produced — thought text, answer text and function calls (name and arguments,
 * as a carried call is counted) — so an answer without reported usage bills every candidate, not the
 * first alone. Empty when the chunk has one candidate.
 */
export function collectUncarriedCandidateText(candidates: GeminiResponse['candidates']): string {
  if (candidates === undefined || candidates.length < 2) return '';
  let text = '';
  for (let position = 1; position < candidates.length; position++) {
    for (const part of candidates[position]?.content?.parts ?? []) {
      if (part.text !== undefined) text += part.text;
      const call = part.functionCall;
      if (call === undefined) continue;
      text += call.name ?? '';
      if (call.args !== undefined) text += JSON.stringify(call.args);
      for (const piece of call.partialArgs ?? []) text += piece.stringValue ?? '';
    }
  }
  return text;
}
