import type { CanonicalMediaSource, CanonicalReasoningPart } from '../../canonical/canonical-request.js';
import { parseDataUrl } from '../../convert/shared/parse-data-url.js';
import { estimatedTokensPerImage, tokensPerMessage } from '../count-tokens.js';
import { PdfScanBudget } from '../estimate-attachment-tokens.js';
import { fileTokens } from '../text/collect-canonical-prompt-text.js';
import { chatThoughtSignatureOf } from '../text/estimate-sent-opaque-tokens.js';
import { estimateOpaqueTokens } from '../estimate-opaque-tokens.js';

export interface PromptText {
  /** Texts counted one by one, their counts summed: separate inputs (a prompt array) are not one text. */
  texts: string[];
  /** Tokens no text shows but images: per-message framing, token ids given as numbers, files, audio. */
  extraTokens: number;
  /** Images (their flat estimates), counted beside `extraTokens`: a local count bills them at the image input price. */
  imageTokens?: number;
  /**
   * The opaque reasoning replayed (signatures, encrypted reasoning) within `extraTokens`: a converted
   * request that leaves some out is counted without it (estimate-sent-opaque-tokens.ts).
   */
  opaqueTokens?: number;
  /**
   * The replayed reasoning within `texts` and `opaqueTokens`, as parts (undefined when there is none): a
   * conversion may leave some out, which the reservation then need not hold (estimate-unsent-reasoning-tokens.ts).
   */
  reasoningParts?: CanonicalReasoningPart[];
}

/** The text of a Chat Completions request that the model reads, for local token counts and estimates. */
export function collectChatPromptText(body: Record<string, unknown>): PromptText {
  const parts: string[] = [];
  let extraTokens = 0;
  let imageTokens = 0;
  let opaqueTokens = 0;
  let reasoningParts: CanonicalReasoningPart[] | undefined;
  // One inflation budget for every PDF of the request, however many it carries.
  const budget = new PdfScanBudget();
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const message of messages) {
    if (message === null || typeof message !== 'object') continue;
    extraTokens += tokensPerMessage;
    const { content, tool_calls: toolCalls, function_call: functionCall, name, reasoning_content: reasoningContent, reasoning } = message as Record<string, unknown>;
    if (typeof name === 'string') parts.push(name);
    // An earlier turn's reasoning, replayed (DeepSeek's thinking mode requires it back on a tool loop, and
    // bills it as input); read as the converters read it: `reasoning_content`, else OpenRouter's `reasoning`.
    const replayedReasoning = reasoningContent ?? reasoning;
    if (typeof replayedReasoning === 'string') {
      parts.push(replayedReasoning);
      // As the Chat parser reads it: text without a signature.
      (reasoningParts ??= []).push({ type: 'reasoning', text: replayedReasoning });
    }
    if (typeof content === 'string') parts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part === null || typeof part !== 'object') continue;
        const { type, text, file } = part as Record<string, unknown>;
        if (typeof text === 'string') parts.push(text);
        // A file: an inline text file as its text, an inline PDF by its pages, as the canonical path counts them.
        else if (type === 'file') extraTokens += fileTokens(fileSourceOf(file), undefined, parts, budget);
        // An image or an audio clip: each at the flat estimate the canonical path uses.
        else if (type === 'image_url' || type === 'input_image') imageTokens += estimatedTokensPerImage;
        else if (type === 'input_audio') extraTokens += estimatedTokensPerImage;
      }
    }
    if (Array.isArray(toolCalls)) {
      // A thought signature (Google's OpenAI-compatible field) is opaque reasoning, counted as every
      // style's is: by its length, apart from the calls' text.
      const signatures = toolCalls.reduce((sum: number, call: unknown) => sum + signatureTokens(call), 0);
      parts.push(JSON.stringify(signatures === 0 ? toolCalls : toolCalls.map(withoutThoughtSignature)));
      opaqueTokens += signatures;
    }
    if (functionCall !== undefined && functionCall !== null) parts.push(JSON.stringify(functionCall));
  }
  // Definitions the model reads and its upstream bills as input: tools, legacy functions, a JSON schema.
  if (Array.isArray(body.tools)) parts.push(JSON.stringify(body.tools));
  if (Array.isArray(body.functions)) parts.push(JSON.stringify(body.functions));
  const format = body.response_format;
  if (format !== null && typeof format === 'object') {
    const schema = (format as Record<string, unknown>).json_schema;
    if (schema !== undefined && schema !== null) parts.push(JSON.stringify(schema));
  }
  return { texts: [parts.join('\n')], extraTokens: extraTokens + opaqueTokens, imageTokens, opaqueTokens, reasoningParts };
}

function signatureTokens(call: unknown): number {
  const signature = call !== null && typeof call === 'object' ? chatThoughtSignatureOf(call as Record<string, unknown>) : undefined;
  return typeof signature === 'string' ? estimateOpaqueTokens(signature) : 0;
}

/** A tool call without its `extra_content.google.thought_signature`. */
function withoutThoughtSignature(call: unknown): unknown {
  if (signatureTokens(call) === 0) return call;
  const { extra_content: extra, ...rest } = call as Record<string, unknown>;
  const { google, ...otherVendors } = extra as Record<string, unknown>;
  const { thought_signature: _signature, ...googleRest } = google as Record<string, unknown>;
  const extraRest = Object.keys(googleRest).length === 0 ? otherVendors : { ...otherVendors, google: googleRest };
  return Object.keys(extraRest).length === 0 ? rest : { ...rest, extra_content: extraRest };
}

/** A Chat `file` part's inline data (`file_data`: a data URL, or bare base64 read as a PDF), when it has one. */
function fileSourceOf(file: unknown): CanonicalMediaSource | undefined {
  const data = file !== null && typeof file === 'object' ? (file as Record<string, unknown>).file_data : undefined;
  return typeof data === 'string' ? { kind: 'base64', ...(parseDataUrl(data) ?? { mediaType: 'application/pdf', data }) } : undefined;
}

/**
 * Legacy completions `prompt`, embeddings `input`, moderations `input`, rerank `query` + `documents`: a
 * string, an array of them (each its own input, counted alone), token ids (a number is one token, as in
 * `[1, 2, 3]` or `[[1, 2], [3]]`), `{ text }` parts, or images — Jina's multimodal `{ image }` inputs and
 * rerank documents, `{ url }`, `{ image_url }`, moderations' `{ type: 'image_url' }` parts — each at the
 * flat per-image estimate. Any other object is counted as its JSON text: an upstream reads something there,
 * and a request must not come to nothing it could be served for free.
 */
export function collectInputText(...values: unknown[]): PromptText {
  const prompt: PromptText = { texts: [], extraTokens: 0, imageTokens: 0 };
  const visit = (value: unknown) => {
    if (typeof value === 'string') prompt.texts.push(value);
    else if (typeof value === 'number') prompt.extraTokens += 1;
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      const part = value as Record<string, unknown>;
      const image = isImageInput(part);
      if (typeof part.text === 'string') prompt.texts.push(part.text);
      else if (!image) prompt.texts.push(JSON.stringify(part));
      if (image) prompt.imageTokens = (prompt.imageTokens ?? 0) + estimatedTokensPerImage;
    }
  };
  values.forEach(visit);
  return prompt;
}

/** An input object that carries an image: by its field (`image`, `image_url`, `url`) or its type. */
function isImageInput(part: Record<string, unknown>): boolean {
  const { type } = part;
  if (type === 'image_url' || type === 'image' || type === 'input_image') return true;
  return [part.image, part.image_url, part.url].some((field) => field !== undefined && field !== null);
}
