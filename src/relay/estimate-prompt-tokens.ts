import { countTextsTokens } from './count-tokens.js';
import { estimateTextTokens } from './estimate-text-tokens.js';
import type { PromptText } from './openai/collect-prompt-text.js';

/** A request's prompt size: an estimate now, for admission, and the exact count on demand, for settlement. */
export interface PromptTokens {
  /** Cheap upper estimate (no tokenizer): sizes the quota reservation and the tokens-per-minute charge. */
  estimatedPromptTokens: number;
  /** The exact local count (o200k), computed once on first call; loads the tokenizer if needed. */
  countPromptTokens(): Promise<number>;
  /** The images in that count (flat estimates): a local count bills them at the image input price. */
  promptImageTokens: number;
}

/** Both counts of a prompt's text plus the tokens that text cannot show (framing, images). */
export function estimatePromptTokens(prompt: PromptText): PromptTokens {
  let exact: Promise<number> | undefined;
  const imageTokens = prompt.imageTokens ?? 0;
  const untold = prompt.extraTokens + imageTokens;
  return {
    estimatedPromptTokens: prompt.texts.reduce((sum, text) => sum + estimateTextTokens(text), untold),
    countPromptTokens: () => (exact ??= countTextsTokens(prompt.texts).then((tokens) => tokens + untold)),
    promptImageTokens: imageTokens,
  };
}
