import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import { formatGeminiThoughtSignature } from './map-gemini-thought-signature.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { isReplayableTo } from '../shared/map-opaque-reasoning.js';

export type GeminiWirePart = Record<string, unknown>;

/**
 * Canonical assistant parts → the parts of a Gemini `model` turn; the inverse of `parseGeminiModelParts`.
 *
 * A reasoning part's signature is written on the text or function call that follows it: Gemini 3 refuses
 * a replayed turn whose first `functionCall` lacks its signature, and a signature that followed thoughts
 * covers them. With nothing after it (or more reasoning), it stays on the thought part itself, or on an
 * empty text part when the reasoning has no text, as Gemini ends a streamed answer.
 *
 * Redacted reasoning (Anthropic `redacted_thinking`, Responses encrypted content) and other vendors'
 * signatures are carried as tagged signatures (map-gemini-thought-signature.ts) toward a Gemini client
 * (`destination: 'client'`), which hands them back on its next turn, and dropped toward a Gemini upstream
 * (`'upstream'`), which could not read them (it refuses a signature it did not issue).
 *
 * `omitThoughtText` (a client that did not ask for includeThoughts) leaves the thought text out, as Gemini
 * does, but not from the signature of Anthropic thinking, which carries the text it signs.
 */
export function formatGeminiModelParts(content: CanonicalAssistantPart[], warnings: string[], options: { destination: 'client' | 'upstream'; omitThoughtText?: boolean }): GeminiWirePart[] {
  const parts: GeminiWirePart[] = [];
  let carried: string | undefined;
  const takeCarried = () => {
    const signature = carried;
    carried = undefined;
    return signature === undefined ? {} : { thoughtSignature: signature };
  };

  content.forEach((part, index) => {
    const next = content[index + 1];
    switch (part.type) {
      case 'reasoning': {
        let signature: string | undefined;
        if (options.destination === 'upstream') {
          if (part.redactedData !== undefined) warnings.push('reasoning: redacted/encrypted reasoning has no Gemini form and was dropped');
          signature = part.signature;
          if (signature !== undefined && !isReplayableTo(part.issuer, 'google')) {
            warnings.push(`reasoning: a signature issued by ${part.issuer} cannot be verified by Gemini and was dropped`);
            signature = undefined;
          }
        } else signature = formatGeminiThoughtSignature(part, warnings);
        const signedPartFollows = signature !== undefined && (next?.type === 'text' || next?.type === 'tool-call');
        const text = options.omitThoughtText === true ? '' : part.text;
        if (text === '') {
          if (signature === undefined) break;
          if (carried !== undefined) parts.push({ text: '', ...takeCarried() });
          if (next !== undefined) carried = signature;
          else parts.push({ text: '', thoughtSignature: signature });
          break;
        }
        const own = signedPartFollows || signature === undefined ? {} : { thoughtSignature: signature };
        if (carried !== undefined && 'thoughtSignature' in own) parts.push({ text: '', ...takeCarried() });
        parts.push({ text, thought: true, ...takeCarried(), ...own });
        if (signedPartFollows) carried = signature;
        break;
      }
      case 'text':
        if (part.text === '' && carried === undefined) break;
        parts.push({ text: part.text, ...takeCarried() });
        break;
      case 'tool-call': {
        const args = parseToolArguments(part.arguments);
        if (args.warning !== undefined) warnings.push(`tool call ${part.id}: ${args.warning}`);
        parts.push({ functionCall: { id: part.id, name: part.name, args: args.value }, ...takeCarried() });
        break;
      }
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled assistant part ${JSON.stringify(unhandled)}`);
      }
    }
  });
  if (carried !== undefined) parts.push({ text: '', ...takeCarried() });
  return parts;
}
