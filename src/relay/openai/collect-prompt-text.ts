import { estimatedTokensPerImage, tokensPerMessage } from '../count-tokens.js';

export interface PromptText {
  text: string;
  /** Tokens that text cannot show: images, per-message framing. */
  extraTokens: number;
}

/** The text of a Chat Completions request that the model reads, for local token counts and estimates. */
export function collectChatPromptText(body: Record<string, unknown>): PromptText {
  const parts: string[] = [];
  let extraTokens = 0;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const message of messages) {
    if (message === null || typeof message !== 'object') continue;
    extraTokens += tokensPerMessage;
    const { content, tool_calls: toolCalls, name } = message as Record<string, unknown>;
    if (typeof name === 'string') parts.push(name);
    if (typeof content === 'string') parts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part === null || typeof part !== 'object') continue;
        const { type, text } = part as Record<string, unknown>;
        if (typeof text === 'string') parts.push(text);
        else if (type === 'image_url' || type === 'input_image') extraTokens += estimatedTokensPerImage;
      }
    }
    if (Array.isArray(toolCalls)) parts.push(JSON.stringify(toolCalls));
  }
  if (Array.isArray(body.tools)) parts.push(JSON.stringify(body.tools));
  return { text: parts.join('\n'), extraTokens };
}

/** Legacy completions `prompt`, embeddings `input`, moderations `input`, rerank `query` + `documents`. */
export function collectInputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(collectInputText).join('\n');
  if (value !== null && typeof value === 'object') {
    const { text } = value as Record<string, unknown>;
    return typeof text === 'string' ? text : '';
  }
  return '';
}
