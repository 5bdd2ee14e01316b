import type { CanonicalMessage, CanonicalToolResultPart, CanonicalUserPart } from '../../canonical/canonical-request.js';
import type { InvalidWireRequest } from '../../canonical/conversion.js';
import type { GeminiContent, GeminiPart } from './gemini-wire-schema.js';
import { makeGeminiToolCallId } from './make-gemini-tool-call-id.js';
import { parseGeminiFunctionResponse } from './parse-gemini-function-response.js';
import { parseGeminiModelParts } from './parse-gemini-model-parts.js';
import { isGeminiFileUri } from './is-gemini-file-uri.js';

interface IssuedCall {
  id: string;
  name: string;
  answered: boolean;
}

/**
 * Gemini `contents` → canonical messages. Consecutive `model` contents form one assistant message (the
 * official SDK's chat history keeps one content per streamed chunk). A user turn is split into `tool`
 * messages (its functionResponse parts) and `user` messages, in order. A functionResponse without an id
 * answers the earliest unanswered call of that name, as Gemini pairs them by name and order.
 */
export function parseGeminiContents(contents: GeminiContent[], warnings: string[]): CanonicalMessage[] | InvalidWireRequest {
  const messages: CanonicalMessage[] = [];
  const issuedCalls: IssuedCall[] = [];
  let generatedIds = 0;
  const newCallId = () => makeGeminiToolCallId(undefined, generatedIds++, '');

  for (let index = 0; index < contents.length; index++) {
    const role = contents[index]?.role ?? 'user';
    if (role === 'model') {
      const parts: GeminiPart[] = [];
      while (contents[index]?.role === 'model') parts.push(...(contents[index++]?.parts ?? []));
      index--;
      const content = parseGeminiModelParts(parts, () => newCallId(), warnings);
      for (const part of content) if (part.type === 'tool-call') issuedCalls.push({ id: part.id, name: part.name, answered: false });
      if (content.length > 0) messages.push({ role: 'assistant', content });
      continue;
    }
    // "function" is the role of functionResponse turns in Google's older examples.
    if (role !== 'user' && role !== 'function') {
      return { invalid: true, param: `contents.${index}.role`, message: `role must be "user" or "model", got ${JSON.stringify(role)}` };
    }
    const before = messages.length;
    let userParts: CanonicalUserPart[] = [];
    let toolResults: CanonicalToolResultPart[] = [];
    const flush = () => {
      if (toolResults.length > 0) messages.push({ role: 'tool', content: toolResults });
      if (userParts.length > 0) messages.push({ role: 'user', content: userParts });
      toolResults = [];
      userParts = [];
    };
    for (const part of contents[index]?.parts ?? []) {
      if (part.functionResponse !== undefined) {
        if (userParts.length > 0) flush();
        const response = part.functionResponse;
        const call = issuedCalls.find((issued) => (response.id !== undefined ? issued.id === response.id : !issued.answered && issued.name === response.name));
        if (call !== undefined) call.answered = true;
        else warnings.push(`functionResponse ${response.name ?? '(unnamed)'}: no earlier functionCall matches it`);
        const name = response.name ?? call?.name ?? '';
        toolResults.push(parseGeminiFunctionResponse(response, response.id ?? call?.id ?? newCallId(), name, warnings));
        continue;
      }
      if (toolResults.length > 0) flush();
      const userPart = parseUserPart(part, warnings);
      if (userPart !== undefined) userParts.push(userPart);
    }
    flush();
    // A user turn with nothing carried stays as an empty turn rather than vanishing (the model turns around
    // it would merge): a converted attempt refuses it (refuse-empty-user-turn.ts), Gemini is passed it as sent.
    if (messages.length === before) messages.push({ role: 'user', content: [], clientPath: `contents.${index}` });
  }
  return messages;
}

function parseUserPart(part: GeminiPart, warnings: string[]): CanonicalUserPart | undefined {
  if (part.thought === true || part.thoughtSignature !== undefined) warnings.push('user turn: thought markers and signatures are only read on model turns');
  if (part.text !== undefined) return part.text === '' || part.thought === true ? undefined : { type: 'text', text: part.text };
  if (part.inlineData !== undefined) {
    const { mimeType, data } = part.inlineData;
    const source = { kind: 'base64' as const, mediaType: mimeType, data };
    return mimeType.startsWith('image/') ? { type: 'image', source } : { type: 'file', source, mediaType: mimeType };
  }
  if (part.fileData !== undefined) {
    const { mimeType, fileUri } = part.fileData;
    if (isGeminiFileUri(fileUri)) {
      warnings.push(`user turn: ${fileUri} is a file only Gemini can read (Files API or Cloud Storage); another vendor cannot fetch it: dropped`);
      return undefined;
    }
    const source = { kind: 'url' as const, url: fileUri };
    if (mimeType?.startsWith('image/') === true) return { type: 'image', source };
    return { type: 'file', source, ...(mimeType === undefined ? {} : { mediaType: mimeType }) };
  }
  if (part.functionCall !== undefined) warnings.push('user turn: a functionCall in a user turn was dropped');
  else if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) warnings.push('user turn: code execution parts were dropped');
  else warnings.push('user turn: a part with no text, inlineData, fileData or functionResponse was dropped');
  return undefined;
}
