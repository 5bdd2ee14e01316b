import type {
  CanonicalAssistantPart,
  CanonicalImagePart,
  CanonicalMediaSource,
  CanonicalMessage,
  CanonicalTextPart,
  CanonicalToolResultPart,
  CanonicalUserPart,
} from '../../canonical/canonical-request.js';
import type { Converted, FormattedRequest } from '../../canonical/conversion.js';
import { dropEmptyTextParts } from '../shared/drop-empty-text-parts.js';
import { inlineTextOf } from '../shared/inline-text-file.js';
import { placeholderFilename } from '../shared/placeholder-filename.js';

type WireMessage = Record<string, unknown>;
type WirePart = Record<string, unknown>;

export interface FormatOpenaiChatMessagesOptions {
  /**
   * Where assistant reasoning from earlier turns goes. OpenAI (and strict compatibles such as LiteLLM on
   * Bedrock) reject unknown message fields with a 400; DeepSeek thinking mode requires `reasoning_content`
   * back on assistant turns that called tools (api-docs.deepseek.com/guides/thinking_mode).
   */
  assistantReasoning: 'omit' | 'reasoning_content';
}

const audioFormats: Record<string, string> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

function toUrl(source: CanonicalMediaSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

function formatImage(part: CanonicalImagePart): WirePart {
  const imageUrl: Record<string, unknown> = { url: toUrl(part.source) };
  if (part.detail !== undefined) imageUrl.detail = part.detail;
  return { type: 'image_url', image_url: imageUrl };
}

function formatUserPart(part: CanonicalUserPart, path: string, warnings: string[]): WirePart | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return formatImage(part);
    case 'file': {
      const mediaType = part.mediaType ?? (part.source.kind === 'base64' ? part.source.mediaType : undefined) ?? '';
      if (mediaType.startsWith('image/')) return formatImage({ type: 'image', source: part.source });
      if (part.source.kind === 'url') {
        warnings.push(`${path}: a file by URL (${mediaType || 'unknown type'}) cannot be sent to Chat Completions; dropped`);
        return undefined;
      }
      const audioFormat = audioFormats[mediaType];
      if (audioFormat !== undefined) return { type: 'input_audio', input_audio: { data: part.source.data, format: audioFormat } };
      // Plain text travels as text; Chat's `file` parts take PDFs only, and refuse other types with a 400.
      const text = inlineTextOf(part.source, part.mediaType);
      if (text !== undefined) return { type: 'text', text };
      if (mediaType !== 'application/pdf') {
        warnings.push(`${path}: Chat Completions takes PDF files, wav or mp3 audio and images, not ${mediaType || 'a file of unknown type'}; dropped`);
        return undefined;
      }
      // OpenAI refuses inline file_data without a filename (400 "Missing required parameter").
      return { type: 'file', file: { file_data: toUrl(part.source), filename: part.filename ?? placeholderFilename(mediaType) } };
    }
    default: {
      const unhandled: never = part;
      throw new Error(`unhandled user part ${JSON.stringify(unhandled)}`);
    }
  }
}

function formatUser(content: CanonicalUserPart[], path: string, warnings: string[]): WireMessage {
  const [only] = content;
  if (content.length === 1 && only?.type === 'text') return { role: 'user', content: only.text };
  const formatted = content.flatMap<WirePart>((part, index) => formatUserPart(part, `${path}.content[${index}]`, warnings) ?? []);
  const parts = dropEmptyTextParts(formatted, 'text');
  // OpenAI refuses an empty parts array; a message of empty text is sent as a lone empty text block is.
  const [first] = parts;
  return { role: 'user', content: first === undefined || (parts.length === 1 && first.type === 'text' && first.text === '') ? '' : parts };
}

function formatAssistant(content: CanonicalAssistantPart[], path: string, warnings: string[], unsentReasoningTexts: string[], options: FormatOpenaiChatMessagesOptions): WireMessage {
  let text = '';
  let reasoning = '';
  const reasoningTexts: string[] = [];
  const toolCalls: WirePart[] = [];
  for (const part of content) {
    switch (part.type) {
      case 'text':
        text += part.text;
        break;
      case 'reasoning':
        reasoning += part.text;
        if (part.text !== '') reasoningTexts.push(part.text);
        if (part.signature !== undefined) warnings.push(`${path}: a reasoning signature cannot be expressed in Chat Completions; dropped`);
        if (part.redactedData !== undefined) warnings.push(`${path}: redacted/encrypted reasoning cannot be expressed in Chat Completions; dropped`);
        break;
      case 'tool-call':
        toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled assistant part ${JSON.stringify(unhandled)}`);
      }
    }
  }
  // OpenAI: content is "required unless tool_calls is specified"; null is its own value for that case.
  const message: WireMessage = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (reasoning !== '') {
    if (options.assistantReasoning === 'reasoning_content') message.reasoning_content = reasoning;
    else {
      warnings.push(`${path}: reasoning text of an earlier turn is not sent to this upstream`);
      unsentReasoningTexts.push(...reasoningTexts);
    }
  }
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

/**
 * One result as a `tool` message (its text), and the images it held: Chat `tool` messages carry text only,
 * so its images travel in a user message after the turn's tool messages, behind a label naming the call.
 */
function formatToolResult(result: CanonicalToolResultPart, path: string, warnings: string[]): { message: WireMessage; images: WirePart[] } {
  const texts: CanonicalTextPart[] = [];
  const images: WirePart[] = [];
  for (const part of result.content) {
    if (part.type === 'text') texts.push(part);
    else if (part.type === 'image') images.push(formatImage(part));
    else if ((part.mediaType ?? (part.source.kind === 'base64' ? part.source.mediaType : '')).startsWith('image/')) images.push(formatImage({ type: 'image', source: part.source }));
    else {
      // A text file a tool returned (a source file, a CSV) is text to the model, as it is in a user turn.
      const text = inlineTextOf(part.source, part.mediaType);
      if (text !== undefined) texts.push({ type: 'text', text });
      else warnings.push(`${path}: Chat Completions tool messages cannot hold files; file dropped from the result of ${result.toolCallId}`);
    }
  }
  if (images.length > 0) {
    warnings.push(`${path}: Chat Completions tool messages cannot hold images; the result of ${result.toolCallId} has its images sent in a user message after the tool messages`);
    const label = `${images.length === 1 ? 'Image' : 'Images'} from the result of tool call ${result.toolCallId}${result.name === undefined ? '' : ` (${result.name})`}:`;
    images.unshift({ type: 'text', text: label });
  }
  if (result.isError === true) warnings.push(`${path}: the error flag of the result of ${result.toolCallId} has no Chat Completions field`);
  // Empty text parts are left out (strict servers refuse them); a result with no text is sent as ''.
  const kept = texts.filter((part) => part.text !== '');
  const [only] = kept;
  const content = kept.length === 0 ? '' : kept.length === 1 && only !== undefined ? only.text : kept.map((part) => ({ type: 'text', text: part.text }));
  return { message: { role: 'tool', tool_call_id: result.toolCallId, content }, images };
}

/** A user message's content as parts, for the images of tool results to go before. */
function asParts(content: unknown): WirePart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content as WirePart[];
}

/**
 * Canonical system prompt and turns → Chat `messages`: one `system` message per system part, one `tool`
 * message per result. Images of tool results follow the run of tool messages (OpenAI requires every
 * `tool_call_id` of an assistant turn answered right after it): in the user message that comes next, before
 * its own content, or else in a user message of their own.
 */
export function formatOpenaiChatMessages(
  system: CanonicalTextPart[],
  messages: CanonicalMessage[],
  options: FormatOpenaiChatMessagesOptions,
): Converted<WireMessage[]> & Pick<FormattedRequest, 'unsentReasoningTexts'> {
  const warnings: string[] = [];
  const unsentReasoningTexts: string[] = [];
  const wire: WireMessage[] = system.map((part) => ({ role: 'system', content: part.text }));
  let resultImages: WirePart[] = [];
  const flushResultImages = () => {
    if (resultImages.length > 0) wire.push({ role: 'user', content: resultImages });
    resultImages = [];
  };
  for (const [index, message] of messages.entries()) {
    const path = `messages[${index}]`;
    switch (message.role) {
      case 'user': {
        const user = formatUser(message.content, path, warnings);
        if (resultImages.length > 0) user.content = [...resultImages, ...asParts(user.content)];
        resultImages = [];
        wire.push(user);
        break;
      }
      case 'assistant':
        flushResultImages();
        wire.push(formatAssistant(message.content, path, warnings, unsentReasoningTexts, options));
        break;
      case 'tool':
        for (const result of message.content) {
          const formatted = formatToolResult(result, path, warnings);
          wire.push(formatted.message);
          resultImages.push(...formatted.images);
        }
        break;
      default: {
        const unhandled: never = message;
        throw new Error(`unhandled message ${JSON.stringify(unhandled)}`);
      }
    }
  }
  flushResultImages();
  return { value: wire, warnings, unsentReasoningTexts };
}
