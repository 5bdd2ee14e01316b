import { formatGeminiJsonSchema } from './format-gemini-json-schema.js';
import type { CanonicalRequest, CanonicalToolChoice } from '../../canonical/canonical-request.js';
import type { FormatRequestOptions, FormattedRequest } from '../../canonical/conversion.js';
import { formatGeminiContents } from './format-gemini-contents.js';
import { formatGeminiGenerationConfig } from './format-gemini-generation-config.js';
import { offeredTools } from '../shared/offered-tools.js';

/**
 * Canonical → the body of a Gemini generateContent / streamGenerateContent call. The model and streaming
 * live in the URL, so `upstreamModel` only steers model-specific forms (Gemini 3 signatures and media in
 * function responses, thinking levels). Tools are declared with `parametersJsonSchema`, which takes JSON
 * Schema as other styles write it (`parameters` takes only an OpenAPI subset).
 */
export function formatGeminiRequest(request: CanonicalRequest, upstreamModel: string, options: Pick<FormatRequestOptions, 'reasoningEffortSetting'> = {}): FormattedRequest {
  const warnings: string[] = [];
  const body: Record<string, unknown> = { contents: formatGeminiContents(request.messages, upstreamModel, warnings) };
  // An empty system part is refused as an empty user part is (see formatGeminiContents).
  const systemParts = request.system.filter((part) => part.text !== '').map((part) => ({ text: part.text }));
  if (systemParts.length > 0) body.systemInstruction = { parts: systemParts };
  if (request.tools.length > 0) {
    body.tools = [
      {
        // An allowed subset under `auto` is declared alone (below); under `required` every tool is, with the names.
        functionDeclarations: (request.toolChoice?.type === 'allowed-tools' && request.toolChoice.mode === 'auto' ? offeredTools(request) : request.tools).map((tool) => ({
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          parametersJsonSchema: formatGeminiJsonSchema(tool.parameters),
        })),
      },
    ];
  }
  // Gemini refuses a function-calling config without function declarations (400 INVALID_ARGUMENT).
  if (request.toolChoice !== undefined && request.tools.length > 0) body.toolConfig = { functionCallingConfig: formatToolChoice(request.toolChoice) };
  else if (request.toolChoice !== undefined) warnings.push(`tool choice '${request.toolChoice.type}' is not sent: no function is declared for Gemini`);
  if (request.parallelToolCalls === false) warnings.push('parallelToolCalls=false has no Gemini form; the model may still call several functions');
  if (request.user !== undefined) warnings.push('user: Gemini has no end-user field; not sent');
  const generationConfig = formatGeminiGenerationConfig(request, upstreamModel, warnings, options.reasoningEffortSetting);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  // Every reasoning text goes as a thought part (format-gemini-model-parts.ts): only signatures are left out.
  return { value: body, warnings, unsentReasoningTexts: [] };
}

function formatToolChoice(choice: CanonicalToolChoice): Record<string, unknown> {
  switch (choice.type) {
    case 'auto':
      return { mode: 'AUTO' };
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [choice.name] };
    case 'allowed-tools':
      // Gemini takes allowedFunctionNames only with mode ANY (must call one) or VALIDATED, a preview mode
      // older models and Vertex may refuse; AUTO ignores them (ai.google.dev/api/caching#FunctionCallingConfig).
      // So `auto` is AUTO with only the allowed functions declared, as Anthropic and Chat upstreams get it.
      return choice.mode === 'required' ? { mode: 'ANY', allowedFunctionNames: choice.names } : { mode: 'AUTO' };
    default: {
      const unhandled: never = choice;
      throw new Error(`unhandled tool choice ${JSON.stringify(unhandled)}`);
    }
  }
}
