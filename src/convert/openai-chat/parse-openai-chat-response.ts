import { z } from 'zod';
import type { CanonicalAssistantPart } from '../../canonical/canonical-request.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { Converted } from '../../canonical/conversion.js';
import { mapOpenaiChatFinishReason } from './map-openai-chat-finish-reason.js';
import { newCallIdNonce } from '../shared/new-call-id-nonce.js';
import { generatedCallId } from './generated-call-id.js';
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
                .array(
                  z
                    .object({
                      // Some compatibles leave out the id, or send the arguments as an object: read as the stream decoder reads them.
                      id: z.string().nullish(),
                      type: z.string().nullish(),
                      function: z.object({ name: z.string(), arguments: z.union([z.string(), z.record(z.unknown())]).nullish() }).passthrough(),
                    })
                    .passthrough(),
                )
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

function readContent(message: WireMessage, responseId: string, warnings: string[]): CanonicalAssistantPart[] {
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
  const usedIds = new Set<string>();
  const nonce = newCallIdNonce();
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    if (call.type !== null && call.type !== undefined && call.type !== 'function') {
      warnings.push(`a ${JSON.stringify(call.type)} tool call cannot be carried; dropped`);
      continue;
    }
    let id = call.id;
    if (id === null || id === undefined || id === '' || usedIds.has(id)) {
      id = generatedCallId(responseId, index, nonce);
      warnings.push(call.id ? `tool call ${index} repeated the id ${call.id}; ${id} given` : `tool call ${index} came without an id; ${id} given`);
    }
    usedIds.add(id);
    const wireArguments = call.function.arguments;
    // A call without arguments ("" or none, from some compatibles) takes none: {}, as OpenAI sends it.
    const args = typeof wireArguments === 'string' || wireArguments === null || wireArguments === undefined ? wireArguments || '{}' : JSON.stringify(wireArguments);
    content.push({ type: 'tool-call', id, name: call.function.name, arguments: args });
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
    content: choice === undefined ? [] : readContent(choice.message, wire.id ?? '', warnings),
    finishReason: mapOpenaiChatFinishReason(choice?.finish_reason),
    usage,
  };
  return { value: response, warnings };
}
