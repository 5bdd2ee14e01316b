import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { estimatedTokensPerImage, tokensPerMessage } from '../count-tokens.js';
import type { PromptText } from '../openai/collect-prompt-text.js';
import { estimatedFileTokens, PdfScanBudget } from '../estimate-attachment-tokens.js';

/** The text of a canonical request that the model reads, for local token counts and estimates. */
export function collectCanonicalPromptText(request: CanonicalRequest): PromptText {
  const texts: string[] = request.system.map((part) => part.text);
  let extraTokens = 0;
  // One inflation budget for every PDF of the request, however many it carries.
  const budget = new PdfScanBudget();
  for (const message of request.messages) {
    extraTokens += tokensPerMessage;
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          texts.push(part.text);
          break;
        case 'image':
          extraTokens += estimatedTokensPerImage;
          break;
        case 'file':
          extraTokens += estimatedFileTokens(part.source, part.mediaType, budget);
          break;
        case 'tool-call':
          texts.push(part.name, part.arguments);
          break;
        case 'tool-result':
          for (const inner of part.content) {
            if (inner.type === 'text') texts.push(inner.text);
            else if (inner.type === 'image') extraTokens += estimatedTokensPerImage;
            else extraTokens += estimatedFileTokens(inner.source, inner.mediaType, budget);
          }
          break;
      }
    }
  }
  if (request.tools.length > 0) texts.push(JSON.stringify(request.tools));
  return { texts: [texts.join('\n')], extraTokens };
}
