import type {
  CanonicalAssistantPart,
  CanonicalMessage,
  CanonicalTextPart,
  CanonicalToolResultPart,
  CanonicalUserPart,
} from '../../canonical/canonical-request.js';
import type { ZodError } from 'zod';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import { parseDataUrl } from '../shared/parse-data-url.js';
import { toInvalidWireRequest } from '../shared/to-invalid-wire-request.js';
import { parseOpenaiChatThoughtSignature } from './map-openai-chat-thought-signature.js';
import {
  openaiChatAudioPartSchema,
  openaiChatFilePartSchema,
  openaiChatImagePartSchema,
  openaiChatMessageSchema,
  openaiChatRefusalPartSchema,
  openaiChatTextPartSchema,
  type OpenaiChatToolCall,
} from './openai-chat-request-schema.js';

export interface ParsedOpenaiChatMessages {
  system: CanonicalTextPart[];
  messages: CanonicalMessage[];
}

type Parts<Part> = Part[] | InvalidWireRequest;
type WireContent = string | { type: string; [key: string]: unknown }[];

const audioMediaTypes: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg' };

function refuse(param: string, message: string): InvalidWireRequest {
  return { invalid: true, param, message };
}

/** System, developer and tool messages hold text only: a string or text parts. */
function parseTextContent(content: WireContent, path: string): Parts<CanonicalTextPart> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: CanonicalTextPart[] = [];
  for (const [index, part] of content.entries()) {
    const text = openaiChatTextPartSchema.safeParse(part);
    if (!text.success) return refuse(`${path}[${index}]`, `Invalid content part at '${path}[${index}]': expected a text part`);
    parts.push({ type: 'text', text: text.data.text });
  }
  return parts;
}

function parseUserContent(content: WireContent, path: string, warnings: string[]): Parts<CanonicalUserPart> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: CanonicalUserPart[] = [];
  for (const [index, part] of content.entries()) {
    const partPath = `${path}[${index}]`;
    const parsed = parseUserPart(part, partPath, warnings);
    if (parsed === undefined) continue;
    if ('invalid' in parsed) return parsed;
    parts.push(parsed);
  }
  return parts;
}

function parseUserPart(part: { type: string }, path: string, warnings: string[]): CanonicalUserPart | InvalidWireRequest | undefined {
  const invalid = (error: ZodError) => toInvalidWireRequest(error, path);
  switch (part.type) {
    case 'text': {
      const text = openaiChatTextPartSchema.safeParse(part);
      return text.success ? { type: 'text', text: text.data.text } : invalid(text.error);
    }
    case 'image_url': {
      const image = openaiChatImagePartSchema.safeParse(part);
      if (!image.success) return invalid(image.error);
      const { url, detail } = typeof image.data.image_url === 'string' ? { url: image.data.image_url, detail: undefined } : image.data.image_url;
      const inline = parseDataUrl(url);
      const source = inline === undefined ? { kind: 'url' as const, url } : { kind: 'base64' as const, ...inline };
      return detail === undefined ? { type: 'image', source } : { type: 'image', source, detail };
    }
    case 'input_audio': {
      const audio = openaiChatAudioPartSchema.safeParse(part);
      if (!audio.success) return invalid(audio.error);
      const { data, format } = audio.data.input_audio;
      const mediaType = audioMediaTypes[format] ?? `audio/${format}`;
      return { type: 'file', source: { kind: 'base64', mediaType, data }, mediaType };
    }
    case 'file': {
      const file = openaiChatFilePartSchema.safeParse(part);
      if (!file.success) return invalid(file.error);
      const { file_data: fileData, file_id: fileId, filename } = file.data.file;
      if (fileData === undefined) {
        warnings.push(`${path}: file_id ${JSON.stringify(fileId ?? null)} names an OpenAI upload and cannot be carried; part dropped`);
        return undefined;
      }
      // OpenAI documents `file_data` as a data URL; chat file inputs are PDFs (platform.openai.com/docs/guides/pdf-files).
      const inline = parseDataUrl(fileData) ?? { mediaType: 'application/pdf', data: fileData };
      const parsed: CanonicalUserPart = { type: 'file', source: { kind: 'base64', ...inline }, mediaType: inline.mediaType };
      return filename === undefined ? parsed : { ...parsed, filename };
    }
    default:
      return refuse(`${path}.type`, `Invalid value for '${path}.type': unsupported content part type ${JSON.stringify(part.type)}`);
  }
}

function parseAssistantText(content: WireContent | null | undefined, path: string, warnings: string[]): Parts<CanonicalTextPart> {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const parts: CanonicalTextPart[] = [];
  for (const [index, part] of content.entries()) {
    const text = openaiChatTextPartSchema.safeParse(part);
    if (text.success) {
      parts.push({ type: 'text', text: text.data.text });
      continue;
    }
    const refusal = openaiChatRefusalPartSchema.safeParse(part);
    if (!refusal.success) return refuse(`${path}[${index}]`, `Invalid content part at '${path}[${index}]': expected a text or refusal part`);
    warnings.push(`${path}[${index}]: a refusal has no canonical form; carried as text`);
    parts.push({ type: 'text', text: refusal.data.refusal });
  }
  return parts;
}

function parseToolCalls(toolCalls: OpenaiChatToolCall[], path: string, warnings: string[], names: Map<string, string>): Parts<CanonicalAssistantPart> {
  const parts: CanonicalAssistantPart[] = [];
  for (const [index, call] of toolCalls.entries()) {
    if (call.type !== undefined && call.type !== 'function') {
      warnings.push(`${path}[${index}]: tool call of type ${JSON.stringify(call.type)} cannot be carried; dropped`);
      continue;
    }
    if (call.function === undefined) return refuse(`${path}[${index}].function`, `Missing required parameter: '${path}[${index}].function'`);
    const { name, arguments: args } = call.function;
    names.set(call.id, name);
    // A Gemini thought signature written on the call (map-openai-chat-thought-signature.ts) signs it again:
    // an empty reasoning right before the call, which the Gemini formatter writes back onto the call.
    const signature = parseOpenaiChatThoughtSignature(call);
    if (signature !== undefined) parts.push({ type: 'reasoning', text: '', ...signature });
    // "" (a call that takes no arguments, as some compatible servers answer it) is replayed as {}.
    parts.push({ type: 'tool-call', id: call.id, name, arguments: typeof args === 'string' ? args || '{}' : JSON.stringify(args) });
  }
  return parts;
}

/** Chat `messages` → canonical system prompt and turns. Consecutive `tool` messages become one tool turn. */
export function parseOpenaiChatMessages(wireMessages: { role: string }[]): Converted<ParsedOpenaiChatMessages> | InvalidWireRequest {
  const warnings: string[] = [];
  const system: CanonicalTextPart[] = [];
  const messages: CanonicalMessage[] = [];
  const toolNames = new Map<string, string>();

  for (const [index, wire] of wireMessages.entries()) {
    const path = `messages[${index}]`;
    if (wire.role === 'function' || (wire.role === 'assistant' && 'function_call' in wire && wire.function_call != null)) {
      return refuse(path, `Legacy function calling ('${path}') cannot be converted to other API styles: use tools and tool messages`);
    }
    const parsed = openaiChatMessageSchema.safeParse(wire);
    if (!parsed.success) return toInvalidWireRequest(parsed.error, path);
    const message = parsed.data;
    if ('name' in message && message.name !== undefined) warnings.push(`${path}.name is not carried to other API styles`);

    switch (message.role) {
      case 'system':
      case 'developer': {
        const parts = parseTextContent(message.content, `${path}.content`);
        if ('invalid' in parts) return parts;
        if (messages.length > 0) warnings.push(`${path}: a ${message.role} message after the conversation started is moved into the system prompt`);
        system.push(...parts);
        break;
      }
      case 'user': {
        const parts = parseUserContent(message.content, `${path}.content`, warnings);
        if ('invalid' in parts) return parts;
        messages.push(parts.length > 0 ? { role: 'user', content: parts } : { role: 'user', content: parts, clientPath: `messages.${index}` });
        break;
      }
      case 'assistant': {
        const content: CanonicalAssistantPart[] = [];
        const reasoning = message.reasoning_content ?? message.reasoning;
        if (reasoning !== null && reasoning !== undefined && reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
        const text = parseAssistantText(message.content, `${path}.content`, warnings);
        if ('invalid' in text) return text;
        content.push(...text);
        if (message.refusal !== null && message.refusal !== undefined && message.refusal !== '') {
          warnings.push(`${path}.refusal has no canonical form; carried as text`);
          content.push({ type: 'text', text: message.refusal });
        }
        const calls = parseToolCalls(message.tool_calls ?? [], `${path}.tool_calls`, warnings, toolNames);
        if ('invalid' in calls) return calls;
        content.push(...calls);
        if ('audio' in message && message.audio != null) warnings.push(`${path}.audio (a previous audio answer) is not carried`);
        messages.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const parts = parseTextContent(message.content, `${path}.content`);
        if ('invalid' in parts) return parts;
        const name = toolNames.get(message.tool_call_id);
        const result: CanonicalToolResultPart =
          name === undefined
            ? { type: 'tool-result', toolCallId: message.tool_call_id, content: parts }
            : { type: 'tool-result', toolCallId: message.tool_call_id, name, content: parts };
        const previous = messages.at(-1);
        if (previous?.role === 'tool') previous.content.push(result);
        else messages.push({ role: 'tool', content: [result] });
        break;
      }
      default: {
        const unhandled: never = message;
        throw new Error(`unhandled message ${JSON.stringify(unhandled)}`);
      }
    }
  }
  return { value: { system, messages }, warnings };
}
