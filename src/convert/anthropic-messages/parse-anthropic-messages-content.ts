import type { z } from 'zod';
import type { InvalidWireRequest } from '../../canonical/conversion.js';
import type {
  CanonicalAssistantPart,
  CanonicalImagePart,
  CanonicalMessage,
  CanonicalTextPart,
  CanonicalToolResultPart,
  CanonicalUserPart,
} from '../../canonical/canonical-request.js';
import {
  anthropicDocumentBlockSchema,
  anthropicImageBlockSchema,
  anthropicRedactedThinkingBlockSchema,
  anthropicTextBlockSchema,
  anthropicThinkingBlockSchema,
  anthropicToolResultBlockSchema,
  anthropicToolUseBlockSchema,
  type AnthropicMessageParam,
} from './anthropic-messages-wire-schema.js';
import { toInvalidAnthropicMessagesRequest } from './to-invalid-anthropic-messages-request.js';
import { toReasoningFields } from '../shared/map-opaque-reasoning.js';
import { parseAnthropicRedactedData, parseAnthropicThinkingSignature } from './map-anthropic-opaque-reasoning.js';

type Path = (string | number)[];
type Block = { type: string } & Record<string, unknown>;
type Parsed<T> = { ok: true; value: T } | { ok: false; invalid: InvalidWireRequest };

function read<T>(schema: z.ZodType<T>, block: unknown, path: Path): Parsed<T> {
  const result = schema.safeParse(block);
  return result.success ? { ok: true, value: result.data } : { ok: false, invalid: toInvalidAnthropicMessagesRequest(result.error, path) };
}

/**
 * Anthropic messages → canonical messages. Tool results ride inside user turns on the wire; here they are
 * split into `tool` messages, in order (`[tool_result a, tool_result b, text]` → tool{a, b}, user{text}), and
 * each result is given the name of the `tool_use` it answers (Gemini needs it). What the canonical model
 * cannot hold is dropped with a warning naming its place; malformed known blocks refuse the request.
 */
export function parseAnthropicMessagesContent(messages: readonly AnthropicMessageParam[], warnings: string[]): CanonicalMessage[] | InvalidWireRequest {
  const canonical: CanonicalMessage[] = [];
  const toolNames = new Map<string, string>();

  /** Consecutive results join one tool message, consecutive user parts one user message. */
  function append(message: Extract<CanonicalMessage, { role: 'user' | 'tool' }>): void {
    const last = canonical.at(-1);
    if (last?.role === 'tool' && message.role === 'tool') last.content.push(...message.content);
    else if (last?.role === 'user' && message.role === 'user') last.content.push(...message.content);
    else canonical.push(message);
  }

  for (const [messageIndex, message] of messages.entries()) {
    const blocks: Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (message.role === 'assistant') {
      const content: CanonicalAssistantPart[] = [];
      for (const [blockIndex, block] of blocks.entries()) {
        const result = parseAssistantBlock(block, ['messages', messageIndex, 'content', blockIndex], warnings);
        if (!result.ok) return result.invalid;
        if (result.value === undefined) continue;
        if (result.value.type === 'tool-call') toolNames.set(result.value.id, result.value.name);
        content.push(result.value);
      }
      canonical.push({ role: 'assistant', content });
      continue;
    }
    const before = canonical.length;
    let carried = false;
    for (const [blockIndex, block] of blocks.entries()) {
      const path = ['messages', messageIndex, 'content', blockIndex];
      if (block.type === 'tool_result') {
        const result = parseToolResult(block, path, toolNames, warnings);
        if (!result.ok) return result.invalid;
        append({ role: 'tool', content: [result.value] });
        carried = true;
        continue;
      }
      const result = parseUserBlock(block, path, warnings);
      if (!result.ok) return result.invalid;
      if (result.value !== undefined) {
        append({ role: 'user', content: [result.value] });
        carried = true;
      }
    }
    // A user turn with nothing carried (empty, or every block dropped) stays as an empty turn rather than
    // vanishing, which would merge the turns around it or end the request on the assistant's turn: a converted
    // attempt refuses it (refuse-empty-user-turn.ts), a passthrough sends the client's blocks as they are.
    if (!carried && canonical.length === before) canonical.push({ role: 'user', content: [], clientPath: `messages.${messageIndex}` });
  }
  return canonical;
}

function noteCacheControl(block: { cache_control?: unknown }, warnings: string[]): void {
  if (block.cache_control != null) warnings.push('cache_control breakpoints are not carried (prompt caching is left to the upstream)');
}

function parseText(block: Block, path: Path, warnings: string[]): Parsed<CanonicalTextPart> {
  const result = read(anthropicTextBlockSchema, block, path);
  if (!result.ok) return result;
  noteCacheControl(result.value, warnings);
  if (result.value.citations != null && result.value.citations.length > 0) warnings.push(`${path.join('.')}: text citations are not carried`);
  return { ok: true, value: { type: 'text', text: result.value.text } };
}

function parseImage(block: Block, path: Path, warnings: string[]): Parsed<CanonicalImagePart | undefined> {
  const result = read(anthropicImageBlockSchema, block, path);
  if (!result.ok) return result;
  noteCacheControl(result.value, warnings);
  const { source } = result.value;
  switch (source.type) {
    case 'base64':
      return { ok: true, value: { type: 'image', source: { kind: 'base64', mediaType: source.media_type, data: source.data } } };
    case 'url':
      return { ok: true, value: { type: 'image', source: { kind: 'url', url: source.url } } };
    case 'file':
      warnings.push(`${path.join('.')}: an image from the Anthropic Files API (${source.file_id}) cannot reach another vendor: dropped`);
      return { ok: true, value: undefined };
    default: {
      const unhandled: never = source;
      throw new Error(`unhandled image source ${JSON.stringify(unhandled)}`);
    }
  }
}

function parseUserBlock(block: Block, path: Path, warnings: string[]): Parsed<CanonicalUserPart | undefined> {
  switch (block.type) {
    case 'text':
      return parseText(block, path, warnings);
    case 'image':
      return parseImage(block, path, warnings);
    case 'document': {
      const result = read(anthropicDocumentBlockSchema, block, path);
      if (!result.ok) return result;
      const { source, title, context, citations } = result.value;
      noteCacheControl(result.value, warnings);
      if (context != null || citations != null) warnings.push(`${path.join('.')}: document context and citations are not carried`);
      const filename = title ?? undefined;
      switch (source.type) {
        case 'base64':
          return { ok: true, value: { type: 'file', source: { kind: 'base64', mediaType: source.media_type, data: source.data }, mediaType: source.media_type, filename } };
        case 'url':
          return { ok: true, value: { type: 'file', source: { kind: 'url', url: source.url }, mediaType: 'application/pdf', filename } };
        case 'text':
          // Plain text is text to every upstream: a `text/plain` file is refused by Chat Completions (PDF
          // only) and would be counted as an attachment rather than by its tokens.
          return { ok: true, value: { type: 'text', text: filename === undefined ? source.data : `${filename}\n\n${source.data}` } };
        case 'content':
        case 'file':
          warnings.push(`${path.join('.')}: a document with a '${source.type}' source is not carried: dropped`);
          return { ok: true, value: undefined };
        default: {
          const unhandled: never = source;
          throw new Error(`unhandled document source ${JSON.stringify(unhandled)}`);
        }
      }
    }
    default:
      warnings.push(`${path.join('.')}: a '${block.type}' block in a user message is not carried: dropped`);
      return { ok: true, value: undefined };
  }
}

function parseToolResult(block: Block, path: Path, toolNames: ReadonlyMap<string, string>, warnings: string[]): Parsed<CanonicalToolResultPart> {
  const result = read(anthropicToolResultBlockSchema, block, path);
  if (!result.ok) return result;
  noteCacheControl(result.value, warnings);
  const { tool_use_id: toolCallId, content: wireContent, is_error: isError } = result.value;
  const content: CanonicalToolResultPart['content'] = [];
  const blocks: Block[] = typeof wireContent === 'string' ? [{ type: 'text', text: wireContent }] : (wireContent ?? []);
  for (const [index, inner] of blocks.entries()) {
    const innerPath = [...path, 'content', index];
    const parsed = inner.type === 'text' || inner.type === 'image' || inner.type === 'document' ? parseUserBlock(inner, innerPath, warnings) : undefined;
    if (parsed === undefined) {
      warnings.push(`${innerPath.join('.')}: a '${inner.type}' block in a tool result is not carried: dropped`);
      continue;
    }
    if (!parsed.ok) return parsed;
    if (parsed.value !== undefined) content.push(parsed.value);
  }
  const part: CanonicalToolResultPart = { type: 'tool-result', toolCallId, content };
  const name = toolNames.get(toolCallId);
  if (name !== undefined) part.name = name;
  if (isError === true) part.isError = true;
  return { ok: true, value: part };
}

function parseAssistantBlock(block: Block, path: Path, warnings: string[]): Parsed<CanonicalAssistantPart | undefined> {
  switch (block.type) {
    case 'text':
      return parseText(block, path, warnings);
    case 'thinking': {
      const result = read(anthropicThinkingBlockSchema, block, path);
      if (!result.ok) return result;
      const { thinking, signature } = result.value;
      return { ok: true, value: signature == null || signature === '' ? { type: 'reasoning', text: thinking } : { type: 'reasoning', text: thinking, ...toReasoningFields(parseAnthropicThinkingSignature(signature)) } };
    }
    case 'redacted_thinking': {
      const result = read(anthropicRedactedThinkingBlockSchema, block, path);
      if (!result.ok) return result;
      return { ok: true, value: { type: 'reasoning', text: '', ...toReasoningFields(parseAnthropicRedactedData(result.value.data)) } };
    }
    case 'tool_use': {
      const result = read(anthropicToolUseBlockSchema, block, path);
      if (!result.ok) return result;
      noteCacheControl(result.value, warnings);
      const { id, name, input } = result.value;
      return { ok: true, value: { type: 'tool-call', id, name, arguments: JSON.stringify(input ?? {}) } };
    }
    default:
      warnings.push(`${path.join('.')}: a '${block.type}' block in an assistant message is not carried: dropped`);
      return { ok: true, value: undefined };
  }
}
