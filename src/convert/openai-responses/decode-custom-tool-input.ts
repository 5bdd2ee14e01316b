import type { Converted } from '../../canonical/conversion.js';
import { isRecord } from '../shared/is-record.js';
import { customToolInputParameter } from './parse-openai-responses-custom-tool.js';

/** What a custom tool's arguments open with when the model wrote them as asked, whitespace aside. */
const opening = `{"${customToolInputParameter}":"`;
const openingPattern = new RegExp(`^\\s*\\{\\s*"${customToolInputParameter}"\\s*:\\s*"`);
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isHexDigits = (text: string): boolean => /^[0-9a-fA-F]{4}$/.test(text);

/**
 * A custom tool's free text from the JSON arguments another style's model wrote for it (`{"input": "…"}`,
 * parse-openai-responses-custom-tool.ts). Anything else — other keys only, a value that is no string, text
 * that is no JSON — is handed on as it stands, with a warning: the client's tool gets what the model wrote.
 */
export function unwrapCustomToolInput(name: string, argumentsText: string): Converted<string> {
  if (argumentsText.trim() === '') return { value: '', warnings: [] };
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    const input = isRecord(parsed) ? parsed[customToolInputParameter] : undefined;
    if (typeof input === 'string') return { value: input, warnings: [] };
  } catch {
    // not JSON: handed on below
  }
  return { value: argumentsText, warnings: [`custom tool call ${JSON.stringify(name)}: the arguments are not {"${customToolInputParameter}": "<text>"}; handed on as the tool's text as they stand`] };
}

/**
 * The end of the longest run of `text` from `start` that is whole JSON string content: it stops before the
 * closing quote, before an escape not yet complete, and before a high surrogate (escaped or not) whose low
 * half has not come yet, so that no delta splits a character. `closed`: the closing quote is there.
 */
function readStringContent(text: string, start: number): { end: number; closed: boolean } {
  let index = start;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') return { end: index, closed: true };
    if (char !== '\\') {
      if (isHighSurrogate(char.charCodeAt(0)) && index + 1 >= text.length) break;
      index += 1;
      continue;
    }
    if (index + 1 >= text.length) break;
    if (text[index + 1] !== 'u') {
      index += 2;
      continue;
    }
    const hex = text.slice(index + 2, index + 6);
    if (hex.length < 4) break;
    const pairFollows = isHexDigits(hex) && isHighSurrogate(Number.parseInt(hex, 16));
    if (pairFollows && text.length < index + 12) break;
    index += pairFollows && text.slice(index + 6, index + 8) === '\\u' ? 12 : 6;
  }
  return { end: index, closed: false };
}

export interface CustomToolInputDecoder {
  /** One fragment of the arguments in; the new text of the tool's input it completes out ('' while none). */
  push(argumentsDelta: string): string;
  /** The arguments are whole: the tool's whole input, and what of it no push returned (a suffix, when what was streamed is its start). */
  end(): Converted<{ input: string; rest: string }>;
}

/**
 * Streams a custom tool's text out of its JSON arguments as they arrive (`{"input":"*** Begin Patch\n…`):
 * each fragment gives the text it completes, unescaped, so a Responses client sees the input grow as it
 * would from OpenAI. Arguments that do not open as `{"input": "` give nothing until the end.
 */
export function createCustomToolInputDecoder(name: string): CustomToolInputDecoder {
  let argumentsText = '';
  let contentStart: number | undefined;
  let decodedUpTo = 0;
  let opaque = false;
  let streamed = '';

  function push(argumentsDelta: string): string {
    argumentsText += argumentsDelta;
    if (opaque) return '';
    if (contentStart === undefined) {
      const match = openingPattern.exec(argumentsText);
      if (match === null) {
        opaque = !opening.startsWith(argumentsText.replace(/\s+/g, ''));
        return '';
      }
      contentStart = match[0].length;
      decodedUpTo = contentStart;
    }
    const { end } = readStringContent(argumentsText, decodedUpTo);
    if (end === decodedUpTo) return '';
    try {
      const text = JSON.parse(`"${argumentsText.slice(decodedUpTo, end)}"`) as string;
      decodedUpTo = end;
      streamed += text;
      return text;
    } catch {
      // A raw control character or a bad escape: not JSON as it should be; the end says what it was.
      opaque = true;
      return '';
    }
  }

  return {
    push,
    end() {
      const whole = unwrapCustomToolInput(name, argumentsText);
      const rest = whole.value.startsWith(streamed) ? whole.value.slice(streamed.length) : '';
      return { value: { input: whole.value, rest }, warnings: whole.warnings };
    },
  };
}
