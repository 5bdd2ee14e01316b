import { z } from 'zod';
import { maxOutputTokensLimit } from '../../canonical/canonical-request.js';

/**
 * Minimal, loose schemas of the OpenAI Responses API (platform.openai.com/docs/api-reference/responses;
 * openai-node v6 `resources/responses/responses.d.ts`). Objects pass unknown fields through so parsers can
 * name what they do not carry. Input items and content parts are first read as `{ type }` only, then checked
 * one by one against the schema of their type, so an error names the exact path and an unknown type is a
 * warning rather than a refusal.
 */
const nullish = <Schema extends z.ZodTypeAny>(schema: Schema) => schema.nullish();

export const openaiResponsesTypedObjectSchema = z.object({ type: z.string() }).passthrough();
export type OpenaiResponsesTypedObject = z.infer<typeof openaiResponsesTypedObjectSchema>;

export const openaiResponsesRequestSchema = z
  .object({
    model: z.string(),
    input: nullish(z.union([z.string(), z.array(z.object({ type: z.string().optional() }).passthrough())])),
    instructions: nullish(z.string()),
    tools: nullish(z.array(openaiResponsesTypedObjectSchema)),
    tool_choice: nullish(z.union([z.string(), openaiResponsesTypedObjectSchema])),
    parallel_tool_calls: nullish(z.boolean()),
    max_output_tokens: nullish(z.number().int().positive().max(maxOutputTokensLimit)),
    temperature: nullish(z.number()),
    top_p: nullish(z.number()),
    reasoning: nullish(
      z
        .object({ effort: nullish(z.string()), summary: nullish(z.string()), generate_summary: nullish(z.string()) })
        .passthrough(),
    ),
    text: nullish(z.object({ format: nullish(openaiResponsesTypedObjectSchema), verbosity: nullish(z.string()) }).passthrough()),
    stream: nullish(z.boolean()),
    user: nullish(z.string()),
    safety_identifier: nullish(z.string()),
    store: nullish(z.boolean()),
    previous_response_id: nullish(z.string()),
    conversation: nullish(z.unknown()),
  })
  .passthrough();
export type OpenaiResponsesRequest = z.infer<typeof openaiResponsesRequestSchema>;

export const openaiResponsesFunctionToolSchema = z
  .object({
    type: z.literal('function'),
    name: z.string(),
    description: nullish(z.string()),
    parameters: nullish(z.record(z.unknown())),
    strict: nullish(z.boolean()),
  })
  .passthrough();

/** A custom tool takes free text; `format` constrains it (`text`, or a `grammar` in `lark` or `regex` syntax). */
export const openaiResponsesCustomToolSchema = z
  .object({
    type: z.literal('custom'),
    name: z.string(),
    description: nullish(z.string()),
    format: nullish(z.object({ type: z.string(), syntax: nullish(z.string()), definition: nullish(z.string()) }).passthrough()),
  })
  .passthrough();
export type OpenaiResponsesCustomTool = z.infer<typeof openaiResponsesCustomToolSchema>;

export const openaiResponsesJsonSchemaFormatSchema = z
  .object({
    type: z.literal('json_schema'),
    name: nullish(z.string()),
    schema: z.record(z.unknown()),
    strict: nullish(z.boolean()),
    description: nullish(z.string()),
  })
  .passthrough();

// Content parts (inside messages and function_call_output arrays).
export const openaiResponsesInputTextSchema = z.object({ type: z.literal('input_text'), text: z.string() }).passthrough();
export const openaiResponsesOutputTextSchema = z.object({ type: z.literal('output_text'), text: z.string() }).passthrough();
export const openaiResponsesRefusalSchema = z.object({ type: z.literal('refusal'), refusal: z.string() }).passthrough();
export const openaiResponsesInputImageSchema = z
  .object({ type: z.literal('input_image'), image_url: nullish(z.string()), file_id: nullish(z.string()), detail: nullish(z.string()) })
  .passthrough();
export const openaiResponsesInputFileSchema = z
  .object({
    type: z.literal('input_file'),
    file_data: nullish(z.string()),
    file_url: nullish(z.string()),
    file_id: nullish(z.string()),
    filename: nullish(z.string()),
  })
  .passthrough();

// Items (of `input`, and of a response's `output`).
export const openaiResponsesMessageItemSchema = z
  .object({
    type: z.literal('message').optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([z.string(), z.array(openaiResponsesTypedObjectSchema)]),
  })
  .passthrough();
export const openaiResponsesFunctionCallItemSchema = z
  .object({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string(), id: nullish(z.string()) })
  .passthrough();
export const openaiResponsesFunctionCallOutputItemSchema = z
  .object({ type: z.literal('function_call_output'), call_id: z.string(), output: z.union([z.string(), z.array(openaiResponsesTypedObjectSchema)]) })
  .passthrough();
export const openaiResponsesCustomToolCallItemSchema = z
  .object({ type: z.literal('custom_tool_call'), call_id: z.string(), name: z.string(), input: z.string() })
  .passthrough();
export const openaiResponsesReasoningItemSchema = z
  .object({
    type: z.literal('reasoning'),
    id: nullish(z.string()),
    summary: nullish(z.array(z.object({ type: z.string(), text: z.string() }).passthrough())),
    content: nullish(z.array(z.object({ type: z.string(), text: z.string() }).passthrough())),
    encrypted_content: nullish(z.string()),
  })
  .passthrough();
export type OpenaiResponsesReasoningItem = z.infer<typeof openaiResponsesReasoningItemSchema>;

/** What we read of a Response object (a non-streamed body, or the `response` of a lifecycle event). */
export const openaiResponsesObjectSchema = z
  .object({
    id: nullish(z.string()),
    created_at: nullish(z.number()),
    model: nullish(z.string()),
    status: nullish(z.string()),
    error: nullish(z.object({ code: nullish(z.string()), message: nullish(z.string()) }).passthrough()),
    incomplete_details: nullish(z.object({ reason: nullish(z.string()) }).passthrough()),
    output: nullish(z.array(openaiResponsesTypedObjectSchema)),
    usage: z.unknown(),
    /** The tier that served the answer (billing: a Priority answer takes the price's multiplier). */
    service_tier: z.unknown(),
  })
  .passthrough();
export type OpenaiResponsesObject = z.infer<typeof openaiResponsesObjectSchema>;

/**
 * The fields we read of any stream event (protocols.md §8); each event type uses the ones it has. Only `type`
 * must be valid: a field of an unexpected shape (in an event type we do not read) reads as absent.
 */
export const openaiResponsesStreamEventSchema = z
  .object({
    type: z.string(),
    output_index: z.number().optional().catch(undefined),
    delta: z.string().optional().catch(undefined),
    arguments: z.string().optional().catch(undefined),
    input: z.string().optional().catch(undefined),
    item: openaiResponsesTypedObjectSchema.optional().catch(undefined),
    response: openaiResponsesObjectSchema.optional().catch(undefined),
    code: z.string().nullish().catch(undefined),
    message: z.string().nullish().catch(undefined),
  })
  .passthrough();
export type OpenaiResponsesStreamEvent = z.infer<typeof openaiResponsesStreamEventSchema>;
