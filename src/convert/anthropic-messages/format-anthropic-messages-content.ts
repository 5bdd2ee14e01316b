import type {
  CanonicalAssistantPart,
  CanonicalFilePart,
  CanonicalImagePart,
  CanonicalMediaSource,
  CanonicalMessage,
  CanonicalToolResultPart,
  CanonicalUserPart,
} from '../../canonical/canonical-request.js';
import { UnsendableRequest } from '../../canonical/conversion.js';
import { anthropicToolUseId } from './anthropic-tool-use-id.js';
import { parseToolCallArguments } from './parse-tool-call-arguments.js';
import { isReplayableTo } from '../shared/map-opaque-reasoning.js';

type WireBlock = Record<string, unknown> & { type: string };
export interface AnthropicWireMessage {
  role: 'user' | 'assistant';
  content: WireBlock[];
}

/**
 * Canonical messages → Anthropic `messages`. Tool messages become `tool_result` blocks of a user turn and
 * merge with the user turn around them, results first (Anthropic requires them at the start of the turn
 * that follows the `tool_use`). Empty and whitespace-only text is left out (Anthropic refuses both: "text
 * content blocks must be non-empty", "… must contain non-whitespace text"), as is the trailing whitespace of a
 * final assistant turn ("final assistant content cannot end with trailing whitespace"). Tool-call ids are sent
 * in the form Anthropic takes (anthropic-tool-use-id.ts). The text of each reasoning part not sent goes to
 * `unsentReasoningTexts` (the prompt's local count holds it).
 */
export function formatAnthropicMessagesContent(messages: readonly CanonicalMessage[], warnings: string[], unsentReasoningTexts: string[]): AnthropicWireMessage[] {
  const wire: AnthropicWireMessage[] = [];
  for (const [index, message] of messages.entries()) {
    const path = `messages.${index}`;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const warned = warnings.length;
    const blocks = formatBlocks(message, path, warnings, unsentReasoningTexts);
    if (blocks.length === 0) {
      // A user turn whose every part was refused: left out, the turns around it would merge, or the request
      // end on the assistant's turn (a prefill Anthropic continues), and the model answer another request.
      if (message.role === 'user' && warnings.length > warned) throw new UnsendableRequest(`${path}: nothing in this user message can be sent to this model (${warnings.slice(warned).join('; ')}).`, path);
      warnings.push(`${path}: nothing left to send in this ${message.role} message: dropped`);
      continue;
    }
    const last = wire.at(-1);
    if (last?.role !== role) {
      wire.push({ role, content: blocks });
      continue;
    }
    const results = [...last.content, ...blocks].filter((block) => block.type === 'tool_result');
    last.content = [...results, ...[...last.content, ...blocks].filter((block) => block.type !== 'tool_result')];
  }
  trimFinalAssistantText(wire, warnings);
  return wire;
}

/** A request ending on an assistant turn is a prefill, which Anthropic refuses when its text ends in whitespace. */
function trimFinalAssistantText(wire: AnthropicWireMessage[], warnings: string[]): void {
  const final = wire.at(-1);
  const block = final?.content.at(-1);
  if (final?.role !== 'assistant' || block?.type !== 'text' || typeof block.text !== 'string' || block.text === block.text.trimEnd()) return;
  block.text = block.text.trimEnd();
  warnings.push(`messages.${wire.length - 1}: the trailing whitespace of the final assistant text is not sent (Anthropic refuses it in a prefill)`);
}

/** Whitespace-only text carries nothing, and Anthropic refuses a text block without non-whitespace text. */
const formatText = (text: string): WireBlock[] => (text.trim() === '' ? [] : [{ type: 'text', text }]);

function formatBlocks(message: CanonicalMessage, path: string, warnings: string[], unsentReasoningTexts: string[]): WireBlock[] {
  switch (message.role) {
    case 'user':
      return message.content.flatMap((part, index) => formatUserPart(part, `${path}.content.${index}`, warnings));
    case 'tool':
      return message.content.map((part, index) => formatToolResult(part, `${path}.content.${index}`, warnings));
    case 'assistant':
      return message.content.flatMap((part, index) => formatAssistantPart(part, `${path}.content.${index}`, warnings, unsentReasoningTexts));
    default: {
      const unhandled: never = message;
      throw new Error(`unhandled message ${JSON.stringify(unhandled)}`);
    }
  }
}

function formatUserPart(part: CanonicalUserPart, path: string, warnings: string[]): WireBlock[] {
  switch (part.type) {
    case 'text':
      return formatText(part.text);
    case 'image':
      return formatImage(part, path, warnings);
    case 'file':
      return formatFile(part, path, warnings);
    default: {
      const unhandled: never = part;
      throw new Error(`unhandled user part ${JSON.stringify(unhandled)}`);
    }
  }
}

/** `data:<media type>;base64,<data>` URLs (as OpenAI clients send images) become base64 sources. */
function readDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,(.*)$/s.exec(url);
  return match?.[1] !== undefined && match[2] !== undefined ? { mediaType: match[1], data: match[2] } : undefined;
}

function toBase64(source: CanonicalMediaSource): { mediaType: string; data: string } | undefined {
  return source.kind === 'base64' ? { mediaType: source.mediaType, data: source.data } : readDataUrl(source.url);
}

/** The image types Anthropic takes inline (its `Base64ImageSource.media_type`). */
const anthropicImageTypes = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function formatImage(part: CanonicalImagePart, path: string, warnings: string[]): WireBlock[] {
  if (part.detail !== undefined) warnings.push(`${path}: image detail '${part.detail}' is not carried`);
  const inline = toBase64(part.source);
  if (inline === undefined) return [{ type: 'image', source: { type: 'url', url: part.source.kind === 'url' ? part.source.url : '' } }];
  // `image/jpg` is a common misspelling of the one JPEG type.
  const mediaType = inline.mediaType.toLowerCase() === 'image/jpg' ? 'image/jpeg' : inline.mediaType.toLowerCase();
  if (!anthropicImageTypes.has(mediaType)) {
    warnings.push(`${path}: an image of type ${inline.mediaType} cannot be sent to Anthropic (JPEG, PNG, GIF and WebP only): dropped`);
    return [];
  }
  return [{ type: 'image', source: { type: 'base64', media_type: mediaType, data: inline.data } }];
}

/** Anthropic takes PDFs (base64 or URL) and plain text as documents, and images; other files cannot be sent. */
function formatFile(part: CanonicalFilePart, path: string, warnings: string[]): WireBlock[] {
  const inline = toBase64(part.source);
  const mediaType = part.mediaType ?? inline?.mediaType;
  const title = part.filename === undefined ? {} : { title: part.filename };
  if (mediaType?.startsWith('image/') === true) return formatImage({ type: 'image', source: part.source }, path, warnings);
  if (inline === undefined && part.source.kind === 'url' && (mediaType === undefined || mediaType === 'application/pdf')) {
    return [{ type: 'document', source: { type: 'url', url: part.source.url }, ...title }];
  }
  if (inline !== undefined && mediaType === 'application/pdf') return [{ type: 'document', source: { type: 'base64', media_type: mediaType, data: inline.data }, ...title }];
  if (inline !== undefined && mediaType === 'text/plain') {
    return [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(inline.data, 'base64').toString('utf8') }, ...title }];
  }
  warnings.push(`${path}: a file of type ${mediaType ?? 'unknown'} cannot be sent to Anthropic (PDF, plain text and images only): dropped`);
  return [];
}

function formatToolResult(part: CanonicalToolResultPart, path: string, warnings: string[]): WireBlock {
  // Anthropic's tool_result holds text, images and documents, as a user turn does.
  const content = part.content.flatMap((inner, index) => formatUserPart(inner, `${path}.content.${index}`, warnings));
  return {
    type: 'tool_result',
    tool_use_id: anthropicToolUseId(part.toolCallId),
    ...(content.length > 0 ? { content } : {}),
    ...(part.isError === true ? { is_error: true } : {}),
  };
}

function formatAssistantPart(part: CanonicalAssistantPart, path: string, warnings: string[], unsentReasoningTexts: string[]): WireBlock[] {
  switch (part.type) {
    case 'text':
      return formatText(part.text);
    case 'reasoning':
      // Anthropic verifies thinking on replay: only signed thinking and redacted data can go back, and only
      // its own (another vendor's is refused: "Invalid signature in thinking block").
      if (!isReplayableTo(part.issuer, 'anthropic') && (part.signature !== undefined || part.redactedData !== undefined)) {
        warnings.push(`${path}: reasoning signed by ${part.issuer} cannot be verified by Anthropic: dropped`);
        if (part.text !== '') unsentReasoningTexts.push(part.text);
        return [];
      }
      if (part.redactedData !== undefined) {
        if (part.text !== '') {
          warnings.push(`${path}: reasoning text beside redacted data is not sent`);
          unsentReasoningTexts.push(part.text);
        }
        return [{ type: 'redacted_thinking', data: part.redactedData }];
      }
      if (part.signature !== undefined) return [{ type: 'thinking', thinking: part.text, signature: part.signature }];
      warnings.push(`${path}: reasoning without a signature cannot be replayed to Anthropic: dropped`);
      if (part.text !== '') unsentReasoningTexts.push(part.text);
      return [];
    case 'tool-call': {
      const input = parseToolCallArguments(part.arguments);
      warnings.push(...input.warnings.map((warning) => `${path}: ${warning}`));
      return [{ type: 'tool_use', id: anthropicToolUseId(part.id), name: part.name, input: input.value }];
    }
    default: {
      const unhandled: never = part;
      throw new Error(`unhandled assistant part ${JSON.stringify(unhandled)}`);
    }
  }
}
