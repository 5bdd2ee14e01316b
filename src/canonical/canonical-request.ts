/**
 * The internal model of a text-generation request that every API style is parsed into and formatted
 * from (issue #5): N parsers + M formatters instead of N×M converters. Plain data, no methods.
 */

/**
 * The largest output-token limit a request may name (max_tokens, max_output_tokens, maxOutputTokens):
 * int32's maximum, where OpenAI's own API stops. The reservation prices this many tokens before the
 * upstream call, and a limit past it (1e300, 2^53 + 2) would leave the safe integers there, a 500 where
 * the client made the mistake.
 */
export const maxOutputTokensLimit = 2_147_483_647;

export interface CanonicalTextPart {
  type: 'text';
  text: string;
  /**
   * The model declined (OpenAI's `refusal`: a Responses refusal part, Chat `message.refusal`). Styles
   * without a refusal field carry it as text.
   */
  refusal?: true;
}

export type CanonicalMediaSource = { kind: 'url'; url: string } | { kind: 'base64'; mediaType: string; data: string };

export interface CanonicalImagePart {
  type: 'image';
  source: CanonicalMediaSource;
  /** OpenAI's `detail` (low | high | auto), kept when the source style had it. */
  detail?: string;
}

export interface CanonicalFilePart {
  type: 'file';
  source: CanonicalMediaSource;
  mediaType?: string;
  filename?: string;
}

/** The vendor family that issued a reasoning signature or redacted reasoning: only it can verify it. */
export type ReasoningIssuer = 'anthropic' | 'google' | 'openai';

/** Model reasoning ("thinking"). `signature` must be echoed back to Anthropic/Gemini on the next turn. */
export interface CanonicalReasoningPart {
  type: 'reasoning';
  text: string;
  signature?: string;
  /** Anthropic `redacted_thinking` data / OpenAI Responses `encrypted_content`: opaque, passed back as is. */
  redactedData?: string;
  /**
   * Who issued `signature` / `redactedData` (convert/shared/map-opaque-reasoning.ts); it goes back to that
   * vendor family only. Undefined: not known (a signature the gateway gave out before it tagged issuers).
   */
  issuer?: ReasoningIssuer;
}

export interface CanonicalToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  /** The arguments as JSON text, exactly as the model produced them. */
  arguments: string;
}

export interface CanonicalToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  /** Gemini needs the function name on a result; other styles only the id. */
  name?: string;
  /** What the tool returned: text, images, and files (a PDF a tool read, as Claude Code's Read returns one). */
  content: (CanonicalTextPart | CanonicalImagePart | CanonicalFilePart)[];
  isError?: boolean;
}

export type CanonicalUserPart = CanonicalTextPart | CanonicalImagePart | CanonicalFilePart;
export type CanonicalAssistantPart = CanonicalTextPart | CanonicalReasoningPart | CanonicalToolCallPart;

/** Tool results live in their own `tool` messages (Anthropic/Gemini put them in user turns: parsers split). */
export type CanonicalMessage =
  | {
      role: 'user';
      content: CanonicalUserPart[];
      /**
       * Where the client's body holds this turn (`messages.2`, `contents.2`, `input.2`), set by the parsers on
       * a user turn left with nothing to carry, so the refusal names the client's turn (relay/refuse-empty-user-turn.ts):
       * the canonical index differs once system messages leave the turns or tool results are split out.
       */
      clientPath?: string;
    }
  | { role: 'assistant'; content: CanonicalAssistantPart[] }
  | { role: 'tool'; content: CanonicalToolResultPart[] };

export interface CanonicalTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

/**
 * `allowed-tools` is OpenAI's `allowed_tools` choice (Gemini: `allowedFunctionNames`): the model may call
 * only the named tools (mode `required`: it must call one of them), though every tool stays declared.
 * Parsers keep it only for a strict subset of the declared tools (convert/shared/to-allowed-tools-choice.ts).
 */
export type CanonicalToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; name: string }
  | { type: 'allowed-tools'; mode: 'auto' | 'required'; names: string[] };

export type CanonicalResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string; schema: Record<string, unknown>; strict?: boolean };

export interface CanonicalReasoningConfig {
  /** OpenAI-style effort. */
  effort?: 'minimal' | 'low' | 'medium' | 'high';
  /** Anthropic budget_tokens / Gemini thinkingBudget; 0 turns thinking off, -1 is Gemini's dynamic budget (thinking on, the model decides). */
  budgetTokens?: number;
  /** Whether the client wants reasoning text returned (Gemini includeThoughts). */
  includeThoughts?: boolean;
}

export interface CanonicalRequest {
  model: string;
  /** System / developer instructions, in order. */
  system: CanonicalTextPart[];
  messages: CanonicalMessage[];
  tools: CanonicalTool[];
  toolChoice?: CanonicalToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseFormat?: CanonicalResponseFormat;
  reasoning?: CanonicalReasoningConfig;
  stream: boolean;
  /** End-user id (OpenAI `user`, Anthropic `metadata.user_id`). */
  user?: string;
}
