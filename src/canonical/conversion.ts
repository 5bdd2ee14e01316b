import type { SseEvent } from '../streaming/decode-sse.js';
import type { CanonicalRequest } from './canonical-request.js';
import type { CanonicalResponse } from './canonical-response.js';
import type { CanonicalStreamPart } from './canonical-stream-part.js';

/** Every converter returns its value with warnings: what could not be carried across (CONVENTIONS.md §5). */
export interface Converted<T> {
  value: T;
  warnings: string[];
}

/**
 * A request formatter's answer: the upstream body, and the text of each replayed reasoning part the body
 * does not carry (another vendor's or unsigned thinking Anthropic cannot verify, reasoning a style has no
 * field for, empty texts left out). The prompt's local count holds that text; an upstream that reports no
 * usage is billed without it (settle-request.ts `countSentPromptTokens`).
 */
export interface FormattedRequest extends Converted<Record<string, unknown>> {
  unsentReasoningTexts: string[];
}

/** A request a parser refuses: the field at fault and why (rendered as a 400 in the client's style). */
export interface InvalidWireRequest {
  invalid: true;
  param: string;
  message: string;
}

/**
 * Thrown by a request formatter when what it would have to leave out changes what the request asks (a
 * user turn with nothing the upstream takes): the relay answers it as a 400, with no upstream call.
 */
export class UnsendableRequest extends Error {
  override readonly name = 'UnsendableRequest';

  constructor(
    message: string,
    /** The request's part at fault, as the canonical request names it (`messages.2`). */
    readonly param: string,
  ) {
    super(message);
  }
}

/** What the relay tells a request formatter about the channel it formats for. */
export interface FormatRequestOptions {
  /**
   * The output limit to send when the request names none and the upstream requires one (Anthropic): the
   * channel's `settings.max_tokens`, else `default_max_output_tokens` — what the reservation covers.
   */
  defaultMaxOutputTokens?: number;
  /** Chat Completions: send earlier turns' reasoning text back as `reasoning_content` (relay/replays-reasoning.ts). */
  replayReasoning?: boolean;
  /** Chat Completions: the channel's `settings.max_tokens_field`, the field the output limit goes in (chat-output-limit-field.ts). */
  outputLimitField?: unknown;
  /**
   * The channel's `settings.reasoning_effort`, whether its model takes reasoning settings: Chat
   * `reasoning_effort` / Responses `reasoning` (convert/shared/takes-openai-reasoning.ts), Anthropic
   * `thinking` (takes-anthropic-thinking.ts), Gemini `thinkingConfig` (takes-gemini-thinking.ts); unset, by
   * the model's name.
   */
  reasoningEffortSetting?: unknown;
}

/** Pure, stateful stream transform: upstream wire events in, canonical parts out. */
export interface StreamDecoder {
  /** One SSE event (Gemini JSON-array streams are fed element by element as `{ data: JSON text }`). */
  push(event: SseEvent): CanonicalStreamPart[];
  /** The upstream ended: close what is open; emits `finish` if none came. */
  end(): CanonicalStreamPart[];
  /**
   * Whether the upstream said its answer was whole (a finish reason, its final event) or failed in-band.
   * False once its body has ended means it broke off mid-answer: an interruption, not a finish.
   */
  readonly complete: boolean;
  readonly warnings: string[];
}

/** Pure, stateful stream transform: canonical parts in, client wire text (SSE frames) out. */
export interface StreamEncoder {
  encode(part: CanonicalStreamPart): string;
  /** The stream ends (after `finish`, or early): whatever closing frames the style needs ([DONE], message_stop). */
  end(): string;
  readonly warnings: string[];
}

/** Ids and the clock are passed in: converters stay pure. */
export interface ConversionContext {
  /** Makes a fresh id with a prefix (`msg_`, `chatcmpl-`, `resp_`, `call_`, `toolu_`). */
  newId(prefix: string): string;
  /** Unix seconds. */
  now: number;
  /** The model name the client asked for (echoed in responses). */
  requestedModel: string;
  /** The client's request body, for the settings a Responses answer repeats (instructions, tools, …). */
  requestEcho?: Readonly<Record<string, unknown>>;
  /**
   * The client's style returns reasoning text only on request and it made none (Gemini without
   * `includeThoughts: true`): reasoning text is left out of the answer, its signatures kept.
   */
  omitReasoningText?: boolean;
  /**
   * The upstream is Gemini, whose function calls carry thought signatures it requires back (Gemini 3): a
   * Chat answer writes each on the tool call that follows it, where Google's own OpenAI-compatible endpoint
   * does (`tool_calls[i].extra_content.google.thought_signature`), since Chat has no reasoning signature field.
   */
  thoughtSignaturesOnToolCalls?: boolean;
}

export type { CanonicalRequest, CanonicalResponse, CanonicalStreamPart };
