import { z } from 'zod';
import { maxOutputTokensLimit } from '../../canonical/canonical-request.js';

/**
 * Minimal zod schemas of the Anthropic Messages wire format (docs.anthropic.com/en/api/messages and
 * /en/docs/build-with-claude/streaming; types as in `@anthropic-ai/sdk` resources/messages). Inbound
 * requests are validated loosely; upstream bodies and events are read through the fields we use.
 * Unknown fields pass validation: the converters decide whether ignoring them needs a warning.
 */

const record = z.record(z.unknown());

// ---- Usage (Message.usage and message_delta.usage) ----

export const anthropicUsageSchema = z
  .object({
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    cache_creation_input_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
    cache_creation: z.object({ ephemeral_5m_input_tokens: z.number().nullish(), ephemeral_1h_input_tokens: z.number().nullish() }).passthrough().nullish(),
    output_tokens_details: z.object({ thinking_tokens: z.number().nullish() }).passthrough().nullish(),
    server_tool_use: z.object({ web_search_requests: z.number().nullish() }).passthrough().nullish(),
  })
  .passthrough();
export type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;

// ---- Request content blocks ----

const cacheControl = { cache_control: record.nullish() };

export const anthropicTextBlockSchema = z.object({ type: z.literal('text'), text: z.string(), citations: z.array(z.unknown()).nullish(), ...cacheControl });

export const anthropicImageBlockSchema = z.object({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
    z.object({ type: z.literal('url'), url: z.string() }),
    z.object({ type: z.literal('file'), file_id: z.string() }),
  ]),
  ...cacheControl,
});

export const anthropicDocumentBlockSchema = z.object({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [
    z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
    z.object({ type: z.literal('url'), url: z.string() }),
    z.object({ type: z.literal('text'), media_type: z.string(), data: z.string() }),
    z.object({ type: z.literal('content'), content: z.unknown() }),
    z.object({ type: z.literal('file'), file_id: z.string() }),
  ]),
  title: z.string().nullish(),
  context: z.string().nullish(),
  citations: record.nullish(),
  ...cacheControl,
});

export const anthropicThinkingBlockSchema = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().nullish() });
export const anthropicRedactedThinkingBlockSchema = z.object({ type: z.literal('redacted_thinking'), data: z.string() });
export const anthropicToolUseBlockSchema = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown(), ...cacheControl });

export const anthropicToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.object({ type: z.string() }).passthrough())]).nullish(),
  is_error: z.boolean().nullish(),
  ...cacheControl,
});

/** A block is first read by its `type` only, then through the schema of that type (unknown types are warned about). */
export const anthropicAnyBlockSchema = z.object({ type: z.string() }).passthrough();

// ---- Request ----

export const anthropicToolSchema = z
  .object({
    type: z.string().nullish(),
    name: z.string().min(1),
    description: z.string().nullish(),
    input_schema: record.optional(),
  })
  .passthrough();

export const anthropicToolChoiceSchema = z.object({
  type: z.enum(['auto', 'any', 'tool', 'none']),
  name: z.string().optional(),
  disable_parallel_tool_use: z.boolean().nullish(),
});

export const anthropicRequestSchema = z
  .object({
    model: z.string().min(1),
    max_tokens: z.number().int().positive().max(maxOutputTokensLimit),
    messages: z
      .array(
        z.object({
          role: z.enum(['user', 'assistant']),
          content: z.union([z.string(), z.array(anthropicAnyBlockSchema)]),
        }),
      )
      .min(1),
    system: z.union([z.string(), z.array(anthropicTextBlockSchema)]).optional(),
    tools: z.array(anthropicToolSchema).optional(),
    tool_choice: anthropicToolChoiceSchema.optional(),
    metadata: z.object({ user_id: z.string().nullish() }).passthrough().optional(),
    stop_sequences: z.array(z.string()).optional(),
    stream: z.boolean().optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().min(0).optional(),
    thinking: z
      .object({
        type: z.string(),
        budget_tokens: z.number().int().positive().optional(),
        display: z.string().nullish(),
      })
      .passthrough()
      .refine((thinking) => thinking.type !== 'enabled' || thinking.budget_tokens !== undefined, {
        message: 'budget_tokens is required when thinking is enabled',
        path: ['budget_tokens'],
      })
      .optional(),
    output_config: z
      .object({
        effort: z.string().nullish(),
        format: z.object({ type: z.literal('json_schema'), schema: record }).nullish(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type AnthropicRequest = z.infer<typeof anthropicRequestSchema>;
export type AnthropicMessageParam = AnthropicRequest['messages'][number];

// ---- Response (non-streamed Message) ----

export const anthropicResponseBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), citations: z.array(z.unknown()).nullish() }),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().nullish() }),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
]);
export type AnthropicResponseBlock = z.infer<typeof anthropicResponseBlockSchema>;

export const anthropicMessageSchema = z.object({
  id: z.string(),
  model: z.string().optional(),
  content: z.array(anthropicAnyBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  stop_details: z.unknown().optional(),
  container: z.unknown().optional(),
  usage: anthropicUsageSchema.optional(),
});

// ---- Stream events ----

export const anthropicDeltaSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), text: z.string() }),
  z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.object({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.object({ type: z.literal('signature_delta'), signature: z.string() }),
]);

export const anthropicStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: anthropicMessageSchema.extend({ content: z.array(anthropicAnyBlockSchema).optional() }) }),
  z.object({ type: z.literal('content_block_start'), index: z.number().int(), content_block: anthropicAnyBlockSchema }),
  z.object({ type: z.literal('content_block_delta'), index: z.number().int(), delta: anthropicAnyBlockSchema }),
  z.object({ type: z.literal('content_block_stop'), index: z.number().int() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({
      stop_reason: z.string().nullish(),
      stop_sequence: z.string().nullish(),
      stop_details: z.unknown().optional(),
      container: z.unknown().optional(),
    }),
    usage: anthropicUsageSchema.optional(),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }).passthrough() }),
]);
export type AnthropicStreamEvent = z.infer<typeof anthropicStreamEventSchema>;

export const anthropicStreamEventTypes: ReadonlySet<string> = new Set(anthropicStreamEventSchema.options.map((option) => option.shape.type.value));
