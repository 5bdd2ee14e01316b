/**
 * Base64 characters taken as one token of opaque data a vendor hands back to be replayed. The data is
 * ciphertext of what the model read or thought (Anthropic's thinking `signature` and `redacted_thinking`
 * data, OpenAI's `encrypted_content`, Gemini's `thoughtSignature`), billed as the tokens it stands for:
 * 4 base64 characters are 3 bytes of it, and English text runs 3 to 4 bytes a token.
 */
export const opaqueCharactersPerToken = 4;

/**
 * Pure: the prompt estimate of one opaque value (0 when absent). Its length only: the value is never read,
 * decoded or tokenized, so a 100 KB signature costs nothing on the hot path.
 */
export function estimateOpaqueTokens(data: string | undefined): number {
  return data === undefined ? 0 : Math.ceil(data.length / opaqueCharactersPerToken);
}
