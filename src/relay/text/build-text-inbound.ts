import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { collectChatPromptText, type PromptText } from '../openai/collect-prompt-text.js';
import { estimatePromptTokens, type PromptTokens } from '../estimate-prompt-tokens.js';
import { estimatedTokensPerImage } from '../count-tokens.js';
import { collectCanonicalPromptText } from './collect-canonical-prompt-text.js';
import { collectDroppedAnthropicPromptText } from './collect-dropped-anthropic-prompt-text.js';
import { collectDroppedResponsesPromptText } from './collect-dropped-responses-prompt-text.js';
import type { TextInbound } from './run-text-relay.js';
import type { TextStyleName } from '../text-style.js';
import { textStyles } from './text-styles.js';
import { withoutForeignReasoning } from './without-foreign-reasoning.js';
import { dropGeminiModelChoice } from '../../convert/gemini/drop-gemini-model-choice.js';

function isInvalid(result: Converted<CanonicalRequest> | InvalidWireRequest): result is InvalidWireRequest {
  return 'invalid' in result;
}

/**
 * A client's body through its style's parser, a refusal as a 400 naming the field. (A body nested deeper
 * than the stack allows overflows the parser: handle-errors.ts answers that with a 400 too.)
 */
function parseClientBody(style: TextStyleName, body: Record<string, unknown>): Converted<CanonicalRequest> {
  const result = textStyles[style].parseRequest(body);
  if (isInvalid(result)) throw new GatewayError('invalid_request', result.message, result.param === '' ? {} : { param: result.param });
  return result;
}

function withModel(rawBody: Buffer | undefined, body: Record<string, unknown>, upstreamModel: string): string | Buffer | undefined {
  return body.model === upstreamModel && rawBody !== undefined ? rawBody : JSON.stringify({ ...body, model: upstreamModel });
}

/** The smallest `max_output_tokens` a Responses upstream accepts. */
const minimumResponsesOutputTokens = 16;

/**
 * A Responses body for the upstream: the model mapped, the output limit the reservation covers when the
 * client named none, and `background` dropped — a background response is made after the answer the
 * gateway bills (its cost never seen), so it is answered in the foreground, as a converted one is.
 */
function responsesPassthroughBody(rawBody: Buffer | undefined, body: Record<string, unknown>, upstreamModel: string, outputLimit: number | undefined): string | Buffer | undefined {
  const background = body.background !== undefined && body.background !== null && body.background !== false;
  if (outputLimit === undefined && !background) return withModel(rawBody, body, upstreamModel);
  const rewritten: Record<string, unknown> = Object.assign({}, body, { model: upstreamModel });
  if (outputLimit !== undefined) rewritten.max_output_tokens = Math.max(outputLimit, minimumResponsesOutputTokens);
  if (background) delete rewritten.background;
  return JSON.stringify(rewritten);
}

/** A Gemini body for the upstream: the output limit the reservation covers set in its generation config when the client named none. */
function geminiPassthroughBody(rawBody: Buffer | undefined, body: Record<string, unknown>, upstreamModel: string, outputLimit: number | undefined): string | Buffer {
  const imageSize = imageSizeFor(upstreamModel, body.generationConfig);
  if (outputLimit === undefined && imageSize === undefined) return rawBody ?? JSON.stringify(body);
  const snake = isRecord(body.generation_config) && !isRecord(body.generationConfig);
  if (snake) return JSON.stringify({ ...body, generation_config: { ...(body.generation_config as Record<string, unknown>), max_output_tokens: outputLimit } });
  const config: Record<string, unknown> = { ...(isRecord(body.generationConfig) ? body.generationConfig : {}) };
  if (outputLimit !== undefined) config.maxOutputTokens = outputLimit;
  if (imageSize !== undefined) config.imageConfig = { ...(config.imageConfig as Record<string, unknown>), imageSize };
  return JSON.stringify({ ...body, generationConfig: config });
}

/** The Gemini image models that make only 1K images (spec §4.5: only gemini-3-pro-image-preview makes 2K). */
const oneKImageModels = /^gemini-(2\.5|3\.1)-flash-image/i;

/** `1K` when the client asked a larger image of a model that makes only 1K ones (spec §4.5: they fall back to 1K); else undefined. */
function imageSizeFor(upstreamModel: string, generationConfig: unknown): string | undefined {
  if (!oneKImageModels.test(upstreamModel) || !isRecord(generationConfig) || !isRecord(generationConfig.imageConfig)) return undefined;
  const size = generationConfig.imageConfig.imageSize;
  return typeof size === 'string' && size.toUpperCase() !== '1K' ? '1K' : undefined;
}

/**
 * Chat Completions: the body was validated by the OpenAI endpoint schema; the canonical form is built
 * only when a channel of another style is tried, so the passthrough path never pays for it.
 */
export function buildChatInbound(body: Record<string, unknown>, rawBody: Buffer | undefined, maxOutputTokens: number | undefined): TextInbound {
  const warnings: string[] = [];
  let canonical: CanonicalRequest | undefined;
  const passthroughSource = withoutForeignReasoning('openai-chat', body, rawBody, warnings);
  const streamOptions = body.stream_options;
  return {
    style: 'openai-chat',
    model: String(body.model),
    stream: body.stream === true,
    canonical() {
      if (canonical === undefined) {
        const parsed = parseClientBody('openai-chat', body);
        warnings.push(...parsed.warnings);
        canonical = parsed.value;
      }
      return canonical;
    },
    ...promptTokensOf(collectChatPromptText(body)),
    maxOutputTokens,
    warnings,
    body,
    rawBody,
    includeUsage: streamOptions !== null && typeof streamOptions === 'object' && (streamOptions as Record<string, unknown>).include_usage === true,
    clientFraming: 'sse',
    passthroughSource,
    passthroughBody: (upstreamModel) => {
      const source = passthroughSource();
      return withModel(source.rawBody, source.body, upstreamModel);
    },
  };
}

/** Anthropic Messages and OpenAI Responses: parsed up front (their validation is the parser's). */
export function buildParsedInbound(style: 'anthropic-messages' | 'openai-responses', body: Record<string, unknown>, rawBody: Buffer | undefined): TextInbound {
  const parsed = parseClientBody(style, body);
  const promptText = collectCanonicalPromptText(parsed.value);
  // What the canonical form drops still reaches a same-style upstream on passthrough, which bills it:
  // Anthropic's blocks and definitions, a Responses compaction item.
  addPromptText(promptText, style === 'anthropic-messages' ? collectDroppedAnthropicPromptText(body) : collectDroppedResponsesPromptText(body));
  // The parser's warnings say what a conversion loses: a passthrough loses none of it (cache_control,
  // server tools reach a same-style upstream), so they reach the log only once a conversion reads the form.
  const warnings: string[] = [];
  let conversionWarned = false;
  const passthroughSource = withoutForeignReasoning(style, body, rawBody, warnings);
  return {
    style,
    model: parsed.value.model,
    stream: body.stream === true,
    canonical() {
      if (!conversionWarned) {
        conversionWarned = true;
        warnings.push(...parsed.warnings);
      }
      return parsed.value;
    },
    ...promptTokensOf(promptText),
    maxOutputTokens: parsed.value.maxOutputTokens,
    warnings,
    body,
    rawBody,
    includeUsage: false,
    clientFraming: 'sse',
    passthroughSource,
    passthroughBody: (upstreamModel, outputLimit) => {
      const source = passthroughSource();
      return style === 'openai-responses' ? responsesPassthroughBody(source.rawBody, source.body, upstreamModel, outputLimit) : withModel(source.rawBody, source.body, upstreamModel);
    },
  };
}

/** The prompt's counts, and the opaque reasoning and the reasoning parts in them. */
function promptTokensOf(prompt: PromptText): PromptTokens & Pick<TextInbound, 'opaquePromptTokens' | 'reasoningParts'> {
  return { ...estimatePromptTokens(prompt), opaquePromptTokens: prompt.opaqueTokens ?? 0, reasoningParts: prompt.reasoningParts };
}

/** Adds `extra` to `prompt`. */
function addPromptText(prompt: PromptText, extra: PromptText): void {
  prompt.texts.push(...extra.texts);
  prompt.extraTokens += extra.extraTokens;
  prompt.imageTokens = (prompt.imageTokens ?? 0) + (extra.imageTokens ?? 0);
  prompt.opaqueTokens = (prompt.opaqueTokens ?? 0) + (extra.opaqueTokens ?? 0);
}

/**
 * Gemini native: the model comes from the path. The client's bytes pass through to a Gemini channel in
 * every framing (the attempt re-frames or merges the always-streamed answer), so Gemini-only fields survive.
 */
export function buildGeminiInbound(body: Record<string, unknown>, rawBody: Buffer | undefined, model: string, stream: boolean, framing: 'sse' | 'json-array'): TextInbound {
  const parsed = parseClientBody('gemini', body);
  const canonical: CanonicalRequest = { ...parsed.value, model, stream };
  const promptText = collectCanonicalPromptText(canonical);
  // Media in the model's own turns (an image it made, sent back to edit) reaches a Gemini upstream though
  // the canonical form drops it: counted as images are everywhere.
  const modelTurnMedia = modelTurnMediaParts(body) * estimatedTokensPerImage;
  promptText.imageTokens = (promptText.imageTokens ?? 0) + modelTurnMedia;
  const warnings = [...parsed.warnings];
  const withoutForeign = withoutForeignReasoning('gemini', body, rawBody, warnings);
  // Nor a model other than the path's (the one authorized and priced): the bytes are re-serialised only
  // when the body names one.
  let source: { body: Record<string, unknown>; rawBody: Buffer | undefined } | undefined;
  const passthroughSource = () => {
    if (source !== undefined) return source;
    source = withoutForeign();
    const cleaned = dropGeminiModelChoice(source.body);
    if (cleaned !== undefined) {
      warnings.push(...cleaned.warnings);
      source = { body: cleaned.value, rawBody: undefined };
    }
    return source;
  };
  return {
    style: 'gemini',
    model,
    stream,
    canonical: () => canonical,
    ...promptTokensOf(promptText),
    maxOutputTokens: canonical.maxOutputTokens,
    warnings,
    body,
    rawBody,
    includeUsage: false,
    clientFraming: framing,
    passthroughSource,
    passthroughBody: (upstreamModel, outputLimit) => {
      const source = passthroughSource();
      return geminiPassthroughBody(source.rawBody, source.body, upstreamModel, outputLimit);
    },
  };
}

/** The `inlineData` / `fileData` parts of a Gemini body's `model` turns. */
function modelTurnMediaParts(body: Record<string, unknown>): number {
  let parts = 0;
  for (const content of Array.isArray(body.contents) ? body.contents : []) {
    if (!isRecord(content) || content.role !== 'model' || !Array.isArray(content.parts)) continue;
    for (const part of content.parts) if (isRecord(part) && (isRecord(part.inlineData) || isRecord(part.fileData) || isRecord(part.inline_data) || isRecord(part.file_data))) parts += 1;
  }
  return parts;
}
