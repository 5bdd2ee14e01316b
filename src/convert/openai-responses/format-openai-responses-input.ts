import type {
  CanonicalAssistantPart,
  CanonicalMediaSource,
  CanonicalMessage,
  CanonicalToolResultPart,
  CanonicalUserPart,
} from '../../canonical/canonical-request.js';
import type { Converted, FormattedRequest } from '../../canonical/conversion.js';
import { dropEmptyTextParts } from '../shared/drop-empty-text-parts.js';
import { placeholderFilename } from '../shared/placeholder-filename.js';
import { isReplayableTo } from '../shared/map-opaque-reasoning.js';

type WireItem = Record<string, unknown>;

/** Responses takes inline media as data URLs. */
function formatMediaUrl(source: CanonicalMediaSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

/** Responses input content is text, images and files (the OpenAPI `InputContent`): audio and video have no place in it. */
function carriesToResponses(part: CanonicalUserPart, path: string, warnings: string[]): boolean {
  const mediaType = part.type === 'file' ? (part.mediaType ?? '') : '';
  const media = /^(audio|video)\//.exec(mediaType)?.[1];
  if (media === undefined) return true;
  warnings.push(`${path}: ${media} input cannot be sent to a Responses upstream (text, images and documents only; this is ${mediaType}): dropped`);
  return false;
}

function formatUserPart(part: CanonicalUserPart): WireItem {
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: part.text };
    case 'image':
      return { type: 'input_image', image_url: formatMediaUrl(part.source), ...(part.detail === undefined ? {} : { detail: part.detail }) };
    case 'file': {
      const file: WireItem = { type: 'input_file' };
      if (part.source.kind === 'url') file.file_url = part.source.url;
      else file.file_data = formatMediaUrl(part.source);
      // OpenAI refuses inline file_data without a filename (400 "Missing required parameter").
      const filename = part.filename ?? (part.source.kind === 'url' ? undefined : placeholderFilename(part.mediaType ?? part.source.mediaType));
      if (filename !== undefined) file.filename = filename;
      return file;
    }
    default: {
      const unhandled: never = part;
      throw new Error(`unhandled user part ${JSON.stringify(unhandled)}`);
    }
  }
}

function formatAssistantParts(parts: CanonicalAssistantPart[], path: string, warnings: string[], unsentReasoningTexts: string[]): WireItem[] {
  const items: WireItem[] = [];
  let textRun: WireItem[] | undefined;
  for (const [index, part] of parts.entries()) {
    if (part.type !== 'text') textRun = undefined;
    switch (part.type) {
      case 'text':
        if (textRun === undefined) {
          textRun = [];
          items.push({ type: 'message', role: 'assistant', content: textRun });
        }
        textRun.push({ type: 'output_text', text: part.text });
        break;
      case 'reasoning':
        // Only OpenAI's own encrypted reasoning can be replayed; a summary alone, or another vendor's signature
        // or redacted thinking (OpenAI refuses encrypted content it did not encrypt), cannot.
        if (part.redactedData === undefined) {
          warnings.push(`${path}.content[${index}]: reasoning without OpenAI encrypted_content cannot be replayed to a Responses upstream; dropped`);
          if (part.text !== '') unsentReasoningTexts.push(part.text);
          break;
        }
        if (!isReplayableTo(part.issuer, 'openai')) {
          warnings.push(`${path}.content[${index}]: reasoning encrypted by ${part.issuer} cannot be verified by OpenAI; dropped`);
          if (part.text !== '') unsentReasoningTexts.push(part.text);
          break;
        }
        if (part.signature !== undefined) warnings.push(`${path}.content[${index}]: the reasoning signature cannot be carried; dropped`);
        items.push({
          type: 'reasoning',
          summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
          encrypted_content: part.redactedData,
        });
        break;
      case 'tool-call':
        items.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments });
        break;
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled assistant part ${JSON.stringify(unhandled)}`);
      }
    }
  }
  return items;
}

function formatToolResult(result: CanonicalToolResultPart, path: string, warnings: string[]): WireItem {
  if (result.isError === true) warnings.push(`${path}: the tool result's error flag cannot be carried; sent as a normal result`);
  // Empty text parts are left out (strict servers refuse them); a result with nothing else is sent as ''.
  const content = result.content.filter((part, index) => carriesToResponses(part, `${path}.content[${index}]`, warnings) && (part.type !== 'text' || part.text !== ''));
  const [first, ...rest] = content;
  const output = first === undefined ? '' : first.type === 'text' && rest.length === 0 ? first.text : content.map(formatUserPart);
  return { type: 'function_call_output', call_id: result.toolCallId, output };
}

/**
 * Canonical turns → Responses `input` items (the system prompt goes to `instructions`, not here). The text
 * of each reasoning item left out goes to `unsentReasoningTexts` (the prompt's local count holds it).
 */
export function formatOpenaiResponsesInput(messages: CanonicalMessage[]): Converted<WireItem[]> & Pick<FormattedRequest, 'unsentReasoningTexts'> {
  const warnings: string[] = [];
  const unsentReasoningTexts: string[] = [];
  const items: WireItem[] = [];
  for (const [index, message] of messages.entries()) {
    const path = `messages[${index}]`;
    switch (message.role) {
      case 'user':
        items.push({
          type: 'message',
          role: 'user',
          content: dropEmptyTextParts(message.content.filter((part, partIndex) => carriesToResponses(part, `${path}.content[${partIndex}]`, warnings)).map(formatUserPart), 'input_text'),
        });
        break;
      case 'assistant':
        items.push(...formatAssistantParts(message.content, path, warnings, unsentReasoningTexts));
        break;
      case 'tool':
        for (const [resultIndex, result] of message.content.entries()) items.push(formatToolResult(result, `${path}.content[${resultIndex}]`, warnings));
        break;
      default: {
        const unhandled: never = message;
        throw new Error(`unhandled message ${JSON.stringify(unhandled)}`);
      }
    }
  }
  return { value: items, warnings, unsentReasoningTexts };
}
