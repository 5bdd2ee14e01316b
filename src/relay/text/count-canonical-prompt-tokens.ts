import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { countTextTokens, estimatedTokensPerImage, tokensPerMessage } from '../count-tokens.js';

/** Local count of what the model reads, for the reservation and for upstreams that report no usage. */
export function countCanonicalPromptTokens(request: CanonicalRequest): number {
  const texts: string[] = request.system.map((part) => part.text);
  let extra = 0;
  for (const message of request.messages) {
    extra += tokensPerMessage;
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          texts.push(part.text);
          break;
        case 'image':
        case 'file':
          extra += estimatedTokensPerImage;
          break;
        case 'tool-call':
          texts.push(part.name, part.arguments);
          break;
        case 'tool-result':
          for (const inner of part.content) {
            if (inner.type === 'text') texts.push(inner.text);
            else extra += estimatedTokensPerImage;
          }
          break;
      }
    }
  }
  if (request.tools.length > 0) texts.push(JSON.stringify(request.tools));
  return countTextTokens(texts.join('\n')) + extra;
}
