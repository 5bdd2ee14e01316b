import type { CanonicalTool } from '../../canonical/canonical-request.js';
import type { Converted } from '../../canonical/conversion.js';
import type { OpenaiResponsesCustomTool } from './openai-responses-wire-schema.js';

/** The one parameter a custom tool's free text travels in, as wrapCustomToolInput writes a custom call's input. */
export const customToolInputParameter = 'input';

/** What the model reads about the text it writes: the tool takes free text, and the format's grammar when it has one. */
function describeFormat(format: OpenaiResponsesCustomTool['format']): string {
  const takesText = `This tool takes free text, not JSON: pass the whole text as the string "${customToolInputParameter}".`;
  if (format?.type !== 'grammar' || format.definition == null) return takesText;
  const syntax = format.syntax ?? 'grammar';
  return `${takesText} The text must match this ${syntax} ${syntax === 'regex' ? 'expression' : 'grammar'}:\n${format.definition}`;
}

/**
 * A Responses custom tool (Codex CLI's `apply_patch`: free text checked against a Lark grammar) → a
 * canonical function taking that text as its one string parameter `input`, for styles that know only JSON
 * arguments. The format is not enforced there, only described to the model; the call comes back to the
 * client as a `custom_tool_call` (format-openai-responses-output.ts, encode-openai-responses-stream.ts).
 */
export function parseOpenaiResponsesCustomTool(tool: OpenaiResponsesCustomTool, path: string): Converted<CanonicalTool> {
  const warnings: string[] = [];
  const format = tool.format;
  if (format != null && format.type !== 'text') {
    warnings.push(`${path}: custom tool ${JSON.stringify(tool.name)} is carried as a function taking its text in "${customToolInputParameter}"; its ${format.syntax ?? format.type} format is described to the model, not enforced`);
  }
  const description = [tool.description ?? '', describeFormat(format)].filter((text) => text !== '').join('\n\n');
  return {
    value: {
      name: tool.name,
      description,
      parameters: {
        type: 'object',
        properties: { [customToolInputParameter]: { type: 'string', description: 'The free text the tool takes, whole.' } },
        required: [customToolInputParameter],
      },
    },
    warnings,
  };
}
