import type { CanonicalMediaSource, CanonicalReasoningPart, CanonicalRequest } from '../../canonical/canonical-request.js';
import { inlineTextOf } from '../../convert/shared/inline-text-file.js';
import { estimatedTokensPerImage, tokensPerMessage } from '../count-tokens.js';
import type { PromptText } from '../openai/collect-prompt-text.js';
import { estimatedFileTokens, PdfScanBudget } from '../estimate-attachment-tokens.js';
import { estimateOpaqueTokens } from '../estimate-opaque-tokens.js';

/** The text of a canonical request that the model reads, for local token counts and estimates. */
export function collectCanonicalPromptText(request: CanonicalRequest): PromptText {
  const texts: string[] = request.system.map((part) => part.text);
  let extraTokens = 0;
  let imageTokens = 0;
  let opaqueTokens = 0;
  let reasoningParts: CanonicalReasoningPart[] | undefined;
  // One inflation budget for every PDF of the request, however many it carries.
  const budget = new PdfScanBudget();
  for (const message of request.messages) {
    extraTokens += tokensPerMessage;
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
          texts.push(part.text);
          break;
        case 'reasoning':
          // Replayed reasoning is billed as input (Anthropic's tool-loop thinking, OpenAI's encrypted
          // reasoning items), its opaque form too: the thinking a signature carries is more than its summary.
          texts.push(part.text);
          opaqueTokens += estimateOpaqueTokens(part.signature) + estimateOpaqueTokens(part.redactedData);
          (reasoningParts ??= []).push(part);
          break;
        case 'image':
          imageTokens += estimatedTokensPerImage;
          break;
        case 'file':
          extraTokens += fileTokens(part.source, part.mediaType, texts, budget);
          break;
        case 'tool-call':
          texts.push(part.name, part.arguments);
          break;
        case 'tool-result':
          for (const inner of part.content) {
            if (inner.type === 'text') texts.push(inner.text);
            else if (inner.type === 'image') imageTokens += estimatedTokensPerImage;
            else extraTokens += fileTokens(inner.source, inner.mediaType, texts, budget);
          }
          break;
      }
    }
  }
  if (request.tools.length > 0) texts.push(JSON.stringify(request.tools));
  // A structured output's schema is input its upstream bills (OpenAI, Anthropic, Gemini alike).
  if (request.responseFormat?.type === 'json_schema') texts.push(JSON.stringify(request.responseFormat.schema));
  return { texts: [texts.join('\n')], extraTokens: extraTokens + opaqueTokens, imageTokens, opaqueTokens, reasoningParts };
}

/**
 * A file's estimate: an inline text file joins `texts` (it is sent and billed as text, however long: a flat
 * per-file figure let a 40,000-token file reserve 1,000), anything else its attachment estimate. Shared
 * with the Chat body's count (openai/collect-prompt-text.ts).
 */
export function fileTokens(source: CanonicalMediaSource | undefined, mediaType: string | undefined, texts: string[], budget: PdfScanBudget): number {
  const text = source === undefined ? undefined : inlineTextOf(source, mediaType);
  if (text === undefined) return estimatedFileTokens(source, mediaType, budget);
  texts.push(text);
  return 0;
}
