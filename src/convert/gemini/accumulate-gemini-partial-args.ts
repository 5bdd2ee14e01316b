import type { GeminiPartialArg } from './gemini-wire-schema.js';

interface OpenContainer {
  key: string | number;
  isArray: boolean;
  children: number;
}

export interface GeminiPartialArgsAccumulator {
  /** The JSON text that the pieces add, to append to what came before. */
  push(partialArgs: GeminiPartialArg[]): string;
  /** The text that closes the object (open string, containers); `{}` when nothing came. */
  finish(): string;
}

/**
 * Vertex streams function-call arguments as `partialArgs` (`streamFunctionCallArguments`): each piece names
 * a leaf by JSON path (RFC 9535, e.g. `$.recipe.steps[0].text`) with its value, and a string value may
 * continue over several pieces (`willContinue`). This writes the JSON text of the arguments as the pieces
 * arrive, so every fragment can be forwarded at once; the fragments join into one JSON object.
 */
export function createGeminiPartialArgsAccumulator(): GeminiPartialArgsAccumulator {
  const open: OpenContainer[] = [];
  let openStringPath: string | undefined;

  function closeString(): string {
    if (openStringPath === undefined) return '';
    openStringPath = undefined;
    return '"';
  }

  function enter(segments: (string | number)[]): string {
    let text = '';
    if (open.length === 0) {
      open.push({ key: '$', isArray: false, children: 0 });
      text += '{';
    }
    const containerPath = segments.slice(0, -1);
    let common = 0;
    while (common < containerPath.length && common + 1 < open.length && open[common + 1]?.key === containerPath[common]) common++;
    while (open.length > common + 1) text += open.pop()?.isArray === true ? ']' : '}';
    for (let depth = common; depth <= containerPath.length; depth++) {
      const parent = open[open.length - 1];
      const segment = depth < containerPath.length ? containerPath[depth] : segments[segments.length - 1];
      if (parent === undefined || segment === undefined) break;
      if (parent.children++ > 0) text += ',';
      if (!parent.isArray) text += `${JSON.stringify(String(segment))}:`;
      if (depth === containerPath.length) break;
      const isArray = typeof (segments[depth + 1] ?? '') === 'number';
      open.push({ key: segment, isArray, children: 0 });
      text += isArray ? '[' : '{';
    }
    return text;
  }

  return {
    push(partialArgs) {
      let text = '';
      for (const piece of partialArgs) {
        if (openStringPath !== undefined && openStringPath === piece.jsonPath && piece.stringValue !== undefined) {
          text += JSON.stringify(piece.stringValue).slice(1, -1);
          if (piece.willContinue !== true) text += closeString();
          continue;
        }
        text += closeString();
        const segments = parseJsonPath(piece.jsonPath);
        const value = valueText(piece);
        if (segments.length === 0 || value === undefined) continue;
        text += enter(segments);
        if (piece.stringValue !== undefined && piece.willContinue === true) {
          text += value.slice(0, -1);
          openStringPath = piece.jsonPath;
        } else {
          text += value;
        }
      }
      return text;
    },
    finish() {
      if (open.length === 0) return '{}';
      let text = closeString();
      while (open.length > 0) text += open.pop()?.isArray === true ? ']' : '}';
      return text;
    },
  };
}

function valueText(piece: GeminiPartialArg): string | undefined {
  if (piece.stringValue !== undefined) return JSON.stringify(piece.stringValue);
  if (piece.numberValue !== undefined) return JSON.stringify(piece.numberValue);
  if (piece.boolValue !== undefined) return JSON.stringify(piece.boolValue);
  if (piece.nullValue !== undefined) return 'null';
  return undefined;
}

/** `$.a.b[0]['c d']` → ['a', 'b', 0, 'c d']; the root `$` alone → []. */
function parseJsonPath(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  let position = path.startsWith('$') ? 1 : 0;
  while (position < path.length) {
    const character = path[position];
    if (character === '.') {
      let end = position + 1;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      segments.push(path.slice(position + 1, end));
      position = end;
    } else if (character === '[') {
      const quote = path[position + 1];
      if (quote === "'" || quote === '"') {
        const end = path.indexOf(`${quote}]`, position + 2);
        const stop = end < 0 ? path.length : end;
        segments.push(path.slice(position + 2, stop));
        position = stop + 2;
      } else {
        const end = path.indexOf(']', position);
        const stop = end < 0 ? path.length : end;
        const index = Number(path.slice(position + 1, stop));
        segments.push(Number.isInteger(index) ? index : path.slice(position + 1, stop));
        position = stop + 1;
      }
    } else {
      // A path without the leading `$.`: read up to the next separator as a name.
      let end = position;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      segments.push(path.slice(position, end));
      position = end;
    }
  }
  return segments;
}
