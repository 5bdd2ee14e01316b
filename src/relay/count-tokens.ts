import { countTokens } from 'gpt-tokenizer';

/**
 * Local token counts for reservations and for upstreams that report no usage. o200k (gpt-4o's encoding)
 * is close enough for other vendors' estimates; the log marks every locally counted request.
 */
export function countTextTokens(text: string): number {
  if (text === '') return 0;
  return countTokens(text, { allowedSpecial: 'all' });
}

/** Images cost by size and detail upstream; before the call we assume this many tokens per image. */
export const estimatedTokensPerImage = 1000;
/** Per-message framing tokens in chat formats (role markers). */
export const tokensPerMessage = 4;
