/**
 * Without `alt=sse`, Gemini's streamGenerateContent answers with one JSON array written over time
 * (`[{…}\r\n,{…}\r\n]`). This splits that body, as it arrives, into the text of each element, so every
 * element can be decoded like an SSE event's data (`StreamDecoder.push({ data })`). It tracks bracket
 * depth outside strings (minding escapes) and never parses the JSON itself. A bare object instead of an
 * array (an error body) is one element.
 */
export interface GeminiJsonArrayStreamSplitter {
  /** Bytes (UTF-8, split anywhere) or text; returns the elements completed by this chunk. */
  push(chunk: Uint8Array | string): string[];
  /** The body ended: returns what is left, or throws when it ended inside an element. */
  end(): string[];
}

export class GeminiJsonArrayStreamError extends Error {
  override readonly name = 'GeminiJsonArrayStreamError';
}

export function createGeminiJsonArrayStreamSplitter(options: { maxElementLength?: number } = {}): GeminiJsonArrayStreamSplitter {
  const maxElementLength = options.maxElementLength ?? 32 * 1024 * 1024;
  const decoder = new TextDecoder('utf-8');
  let mode: 'start' | 'between' | 'element' | 'done' = 'start';
  let insideArray = true;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let pending = '';

  function scan(text: string): string[] {
    const elements: string[] = [];
    let elementStart = mode === 'element' ? 0 : -1;
    for (let index = 0; index < text.length; index++) {
      const character = text[index];
      if (mode === 'element') {
        if (inString) {
          if (escaped) escaped = false;
          else if (character === '\\') escaped = true;
          else if (character === '"') inString = false;
        } else if (character === '"') inString = true;
        else if (character === '{' || character === '[') depth++;
        else if ((character === '}' || character === ']') && --depth === 0) {
          elements.push(pending + text.slice(elementStart, index + 1));
          pending = '';
          elementStart = -1;
          mode = insideArray ? 'between' : 'done';
        }
        continue;
      }
      if (character === ' ' || character === '\n' || character === '\r' || character === '\t') continue;
      if (mode === 'start' && character === '[') mode = 'between';
      else if ((mode === 'start' || mode === 'between') && character === '{') {
        insideArray = mode === 'between';
        mode = 'element';
        depth = 1;
        elementStart = index;
      } else if (mode === 'between' && character === ',') continue;
      else if (mode === 'between' && character === ']') mode = 'done';
      else throw new GeminiJsonArrayStreamError(`unexpected ${JSON.stringify(character)} ${mode === 'done' ? 'after the array' : 'between elements'}`);
    }
    if (mode === 'element') {
      pending += text.slice(elementStart);
      if (pending.length > maxElementLength) throw new GeminiJsonArrayStreamError(`an element exceeds ${maxElementLength} characters`);
    }
    return elements;
  }

  return {
    push(chunk) {
      return scan(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    },
    end() {
      const elements = scan(decoder.decode());
      if (mode === 'element') throw new GeminiJsonArrayStreamError('the body ended inside an element');
      return elements;
    },
  };
}
