import { z } from 'zod';
import { maxOutputTokensLimit } from '../../canonical/canonical-request.js';

/**
 * Minimal, loose schemas of a Chat Completions request (platform.openai.com/docs/api-reference/chat/create).
 * Objects pass unknown fields through so the parser can name what it does not carry. Message content parts
 * are checked one by one by the message parser, which knows the path of each part for its error.
 */
const nullish = <Schema extends z.ZodTypeAny>(schema: Schema) => schema.nullish();

export const openaiChatTextPartSchema = z.object({ type: z.literal('text'), text: z.string() }).passthrough();
export const openaiChatImagePartSchema = z
  .object({
    type: z.literal('image_url'),
    // vLLM and others also accept the URL as a bare string.
    image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.string().optional() }).passthrough()]),
  })
  .passthrough();
export const openaiChatAudioPartSchema = z
  .object({ type: z.literal('input_audio'), input_audio: z.object({ data: z.string(), format: z.string() }).passthrough() })
  .passthrough();
export const openaiChatFilePartSchema = z
  .object({
    type: z.literal('file'),
    file: z.object({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }).passthrough(),
  })
  .passthrough();
export const openaiChatRefusalPartSchema = z.object({ type: z.literal('refusal'), refusal: z.string() }).passthrough();

const contentSchema = z.union([z.string(), z.array(z.object({ type: z.string() }).passthrough())]);

export const openaiChatToolCallSchema = z
  .object({
    id: z.string(),
    type: z.string().optional(),
    function: z.object({ name: z.string(), arguments: z.union([z.string(), z.record(z.unknown())]) }).passthrough().optional(),
  })
  .passthrough();

export const openaiChatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: contentSchema, name: z.string().optional() }).passthrough(),
  z.object({ role: z.literal('developer'), content: contentSchema, name: z.string().optional() }).passthrough(),
  z.object({ role: z.literal('user'), content: contentSchema, name: z.string().optional() }).passthrough(),
  z
    .object({
      role: z.literal('assistant'),
      content: nullish(contentSchema),
      refusal: nullish(z.string()),
      tool_calls: nullish(z.array(openaiChatToolCallSchema)),
      // DeepSeek's field, and the one OpenRouter/vLLM use.
      reasoning_content: nullish(z.string()),
      reasoning: nullish(z.string()),
      name: z.string().optional(),
    })
    .passthrough(),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: contentSchema }).passthrough(),
]);

export const openaiChatToolSchema = z
  .object({
    type: z.string(),
    function: z
      .object({ name: z.string(), description: z.string().optional(), parameters: z.record(z.unknown()).optional(), strict: nullish(z.boolean()) })
      .passthrough()
      .optional(),
  })
  .passthrough();

export const openaiChatToolChoiceSchema = z.union([
  z.string(),
  z
    .object({
      type: z.string(),
      function: z.object({ name: z.string() }).passthrough().optional(),
      allowed_tools: z
        .object({
          mode: z.string(),
          tools: z.array(z.object({ type: z.string(), function: z.object({ name: z.string() }).passthrough().optional() }).passthrough()).optional(),
        })
        .passthrough()
        .optional(),
    })
    .passthrough(),
]);

export const openaiChatResponseFormatSchema = z
  .object({
    type: z.string(),
    json_schema: z
      .object({ name: z.string().optional(), description: z.string().optional(), schema: z.record(z.unknown()).optional(), strict: nullish(z.boolean()) })
      .passthrough()
      .optional(),
  })
  .passthrough();

export const openaiChatRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(z.object({ role: z.string() }).passthrough()).min(1),
    tools: nullish(z.array(openaiChatToolSchema)),
    tool_choice: nullish(openaiChatToolChoiceSchema),
    parallel_tool_calls: nullish(z.boolean()),
    // 0 is refused, as OpenAI refuses it: a Go server chained as a channel would drop it (omitempty) and apply no limit.
    max_tokens: nullish(z.number().int().positive().max(maxOutputTokensLimit)),
    max_completion_tokens: nullish(z.number().int().positive().max(maxOutputTokensLimit)),
    temperature: nullish(z.number()),
    top_p: nullish(z.number()),
    // Not OpenAI's: vLLM, DeepSeek-compatible servers and others accept it.
    top_k: nullish(z.number().int()),
    stop: nullish(z.union([z.string(), z.array(z.string())])),
    seed: nullish(z.number().int()),
    presence_penalty: nullish(z.number()),
    frequency_penalty: nullish(z.number()),
    response_format: nullish(openaiChatResponseFormatSchema),
    reasoning_effort: nullish(z.string()),
    stream: nullish(z.boolean()),
    stream_options: nullish(z.object({ include_usage: nullish(z.boolean()) }).passthrough()),
    n: nullish(z.number().int().positive()),
    user: nullish(z.string()),
  })
  .passthrough();

export type OpenaiChatRequest = z.infer<typeof openaiChatRequestSchema>;
export type OpenaiChatToolCall = z.infer<typeof openaiChatToolCallSchema>;
