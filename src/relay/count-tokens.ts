/** Counts a text's tokens exactly (o200k, gpt-tokenizer's default encoding). */
export type TokenCounter = (text: string) => number;

let loadedCounter: TokenCounter | undefined;
let loading: Promise<TokenCounter> | undefined;

/**
 * Loads the exact tokenizer on first need. Its o200k tables cost ~50 MB of resident memory and a
 * request's admission only needs an estimate (estimate-text-tokens.ts), so a gateway whose upstreams
 * report usage never loads it; settlement without upstream usage and the local count endpoints do.
 * o200k (gpt-4o's encoding) is close enough for other vendors' local counts; the log marks them.
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import('gpt-tokenizer').then(
    ({ countTokens }) => (loadedCounter = (text) => (text === '' ? 0 : countTokens(text, { allowedSpecial: 'all' }))),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The exact counter if something already loaded it, for callers that must not wait. */
export function loadedTokenCounter(): TokenCounter | undefined {
  return loadedCounter;
}

/** The exact token count of `text`, loading the tokenizer first when this is its first use. */
export async function countTextTokens(text: string): Promise<number> {
  if (text === '') return 0;
  return (loadedCounter ?? (await loadTokenCounter()))(text);
}

/** The exact token counts of several texts, summed (each counted alone). */
export async function countTextsTokens(texts: readonly string[]): Promise<number> {
  if (texts.every((text) => text === '')) return 0;
  const count = loadedCounter ?? (await loadTokenCounter());
  return texts.reduce((sum, text) => sum + count(text), 0);
}

/** Images cost by size and detail upstream; before the call we assume this many tokens per image. */
export const estimatedTokensPerImage = 1000;
/** Per-message framing tokens in chat formats (role markers). */
export const tokensPerMessage = 4;
