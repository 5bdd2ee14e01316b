import type { CanonicalAssistantPart } from './canonical-request.js';
import type { CanonicalResponse } from './canonical-response.js';
import type { CanonicalStreamPart } from './canonical-stream-part.js';

/**
 * Pure: folds a stream of parts into the response a non-streaming client gets (Gemini upstreams are
 * always called streaming). Adjacent deltas of one kind join; tool calls keep their order by index.
 */
export function collectStreamParts(parts: readonly CanonicalStreamPart[]): CanonicalResponse {
  const response: CanonicalResponse = { id: '', model: '', created: 0, content: [], finishReason: { unified: 'other', raw: undefined }, usage: undefined };
  const toolCalls = new Map<number, Extract<CanonicalAssistantPart, { type: 'tool-call' }>>();
  const last = () => response.content[response.content.length - 1];
  for (const part of parts) {
    switch (part.type) {
      case 'start':
        response.id = part.id;
        response.model = part.model;
        response.created = part.created;
        break;
      case 'text-delta': {
        const tail = last();
        if (tail?.type === 'text' && tail.refusal === part.refusal) tail.text += part.text;
        else response.content.push(part.refusal === true ? { type: 'text', text: part.text, refusal: true } : { type: 'text', text: part.text });
        break;
      }
      case 'reasoning-delta': {
        const tail = last();
        if (tail?.type === 'reasoning' && tail.signature === undefined) tail.text += part.text;
        else response.content.push({ type: 'reasoning', text: part.text });
        break;
      }
      case 'reasoning-signature': {
        const tail = last();
        const issuer = part.issuer === undefined ? {} : { issuer: part.issuer };
        if (tail?.type === 'reasoning') Object.assign(tail, { signature: part.signature }, issuer);
        else response.content.push({ type: 'reasoning', text: '', signature: part.signature, ...issuer });
        break;
      }
      case 'reasoning-redacted':
        response.content.push({ type: 'reasoning', text: '', redactedData: part.data, ...(part.issuer === undefined ? {} : { issuer: part.issuer }) });
        break;
      case 'tool-call-start': {
        const call = { type: 'tool-call' as const, id: part.id, name: part.name, arguments: '' };
        toolCalls.set(part.index, call);
        response.content.push(call);
        break;
      }
      case 'tool-call-delta': {
        const call = toolCalls.get(part.index);
        if (call !== undefined) call.arguments += part.argumentsDelta;
        break;
      }
      case 'input-usage':
        // A report that leaves out output already produced: no earlier report is the answer's usage.
        response.usage = undefined;
        break;
      case 'tool-call-end':
      case 'error':
      case 'web-searches':
      case 'uncarried-output':
      case 'output-item':
        break;
      case 'usage':
        response.usage = part.usage;
        break;
      case 'finish':
        response.finishReason = part.finishReason;
        if (part.usage !== undefined) response.usage = part.usage;
        break;
      default: {
        const unreachable: never = part;
        throw new Error(`unknown stream part ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return response;
}
