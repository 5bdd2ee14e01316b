import { z } from 'zod';
import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { Converted } from '../../canonical/conversion.js';
import { mapOpenaiChatFinishReason } from './map-openai-chat-finish-reason.js';
import { readOpenaiChatUsage } from './read-openai-chat-usage.js';

/** What we read of a `chat.completion` body; everything else is named in a warning or ignored. */
const responseSchema = z
  .object({
    id: z.string().nullish(),
    created: z.number().nullish(),
    model: z.string().nullish(),
    choices: z.array(
      z
        .object({
          index: z.number().nullish(),
          message: z
            .object({
              // Mistral and a few compatibles answer with an array of parts.
              content: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough())]).nullish(),
              refusal: z.string().nullish(),
              reasoning_content: z.string().nullish(),
              reasoning: z.string().nullish(),
              tool_calls: z
                .array(z.object({ id: z.string(), type: z.string().nullish(), function: z.object({ name: z.string(), arguments: z.string().nullish() }).passthrough() }).passthrough())
                .nullish(),
              annotations: z.array(z.unknown()).nullish(),
              audio: z.unknown(),
            })
            .passthrough(),
          finish_reason: z.string().nullish(),
          logprobs: z.unknown(),
        })
        .passthrough(),
    ),
    usage: z.unknown(),
  })
  .passthrough();

type WireMessage = z.infer<typeof responseSchema>['choices'][number]['message'];

function readContent(message: WireMessage, warnings: string[]): CanonicalAssistantPart[] {
  const content: CanonicalAssistantPart[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (reasoning !== null && reasoning !== undefined && reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
  const wireContent = message.content ?? '';
  const parts = typeof wireContent === 'string' ? [{ type: 'text', text: wireContent }] : wireContent;
  for (const part of parts) {
    if (part.type === 'text' && part.text !== undefined) {
      if (part.text !== '') content.push({ type: 'text', text: part.text });
    } else warnings.push(`a ${JSON.stringify(part.type)} content part of the answer cannot be carried; dropped`);
  }
  if (message.refusal !== null && message.refusal !== undefined && message.refusal !== '') content.push({ type: 'text', text: message.refusal, refusal: true });
  for (const call of message.tool_calls ?? []) {
    if (call.type !== null && call.type !== undefined && call.type !== 'function') {
      warnings.push(`a ${JSON.stringify(call.type)} tool call cannot be carried; dropped`);
      continue;
    }
    // A call without arguments ("" or none, from some compatibles) takes none: {}, as OpenAI sends it.
    content.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments || '{}' });
  }
  if (message.annotations !== null && message.annotations !== undefined && message.annotations.length > 0) {
    warnings.push(`${message.annotations.length} annotation(s) (citations) cannot be carried; dropped`);
  }
  if (message.audio !== null && message.audio !== undefined) warnings.push('the audio answer cannot be carried; dropped');
  return content;
}

/** An upstream `chat.completion` body → canonical. A body that is no chat completion at all is a fault: it throws. */
export function parseOpenaiChatResponse(body: unknown): Converted<CanonicalResponse> {
  const parsed = responseSchema.safeParse(body);
  if (!parsed.success) throw new Error(`upstream body is not a chat completion: ${parsed.error.issues[0]?.message ?? 'malformed'} at ${parsed.error.issues[0]?.path.join('.') ?? ''}`);
  const wire = parsed.data;
  const warnings: string[] = [];
  const [choice, ...others] = wire.choices;
  if (others.length > 0) warnings.push(`${others.length} further choice(s) dropped: only one is carried`);
  if (choice === undefined) warnings.push('the upstream answered with no choice');
  if (choice?.logprobs !== null && choice?.logprobs !== undefined) warnings.push('logprobs cannot be carried; dropped');

  const usage = readOpenaiChatUsage(wire.usage);
  if (usage === undefined) warnings.push('the upstream reported no usage');
  const response: CanonicalResponse = {
    id: wire.id ?? '',
    model: wire.model ?? '',
    created: wire.created ?? 0,
    content: choice === undefined ? [] : readContent(choice.message, warnings),
    finishReason: mapOpenaiChatFinishReason(choice?.finish_reason),
    usage,
  };
  return { value: response, warnings };
}
