import type {
  CanonicalReasoningConfig,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalTextPart,
  CanonicalTool,
  CanonicalToolChoice,
} from '../../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import { toAllowedToolsChoice } from '../shared/to-allowed-tools-choice.js';
import { camelizeGeminiKeys, GeminiSpellingConflict } from './camelize-gemini-keys.js';
import { geminiRequestSchema, type GeminiRequest } from './gemini-wire-schema.js';
import { normalizeGeminiSchema } from './normalize-gemini-schema.js';
import { parseGeminiContents } from './parse-gemini-contents.js';

/**
 * A client's Gemini generateContent body (ai.google.dev/api/generate-content#request-body) → canonical.
 * The model and streaming come from the URL (`/v1beta/models/{model}:streamGenerateContent`), not the
 * body: `model` is read from the body only when a client put it there, and the route sets both.
 */
const carriedRequestFields = new Set(['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);
const carriedGenerationFields = new Set([
  'temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences', 'seed', 'presencePenalty', 'frequencyPenalty',
  'responseMimeType', 'responseSchema', 'responseJsonSchema', 'thinkingConfig', 'candidateCount',
]);
const efforts = ['minimal', 'low', 'medium', 'high'] as const;
type Effort = (typeof efforts)[number];
const isEffort = (level: string): level is Effort => (efforts as readonly string[]).includes(level);

export function parseGeminiRequest(body: unknown): Converted<CanonicalRequest> | InvalidWireRequest {
  let camelized: unknown;
  try {
    camelized = camelizeGeminiKeys(body);
  } catch (error) {
    if (!(error instanceof GeminiSpellingConflict)) throw error;
    return { invalid: true, param: error.field, message: error.message };
  }
  const parsed = geminiRequestSchema.safeParse(camelized);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.join('.') || 'body';
    // Named as Google names it ("GenerateContentRequest.contents: …"): the message alone says "Required".
    return { invalid: true, param, message: `${param}: ${issue?.message ?? 'invalid request body'}` };
  }
  const wire = parsed.data;
  if (wire.contents.length === 0) return { invalid: true, param: 'contents', message: 'contents must not be empty' };
  const warnings: string[] = [];
  for (const key of Object.keys(wire)) if (!carriedRequestFields.has(key)) warnings.push(`${key} has no canonical form and was not carried`);

  const messages = parseGeminiContents(wire.contents, warnings);
  if ('invalid' in messages) return messages;
  const config = wire.generationConfig ?? {};
  for (const key of Object.keys(config)) if (!carriedGenerationFields.has(key)) warnings.push(`generationConfig.${key} has no canonical form and was not carried`);
  if (config.candidateCount !== undefined && config.candidateCount > 1) warnings.push('generationConfig.candidateCount > 1: only one candidate is generated');

  const responseFormat = parseResponseFormat(wire, warnings);
  const reasoning = parseReasoning(wire, warnings);
  const tools = parseTools(wire, warnings);
  const toolChoice = parseToolChoice(wire, tools, warnings);
  const request: CanonicalRequest = {
    model: (wire.model ?? '').replace(/^models\//, ''),
    system: parseSystem(wire, warnings),
    messages,
    tools,
    ...(toolChoice === undefined ? {} : { toolChoice }),
    ...(config.maxOutputTokens === undefined ? {} : { maxOutputTokens: config.maxOutputTokens }),
    ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
    ...(config.topP === undefined ? {} : { topP: config.topP }),
    ...(config.topK === undefined ? {} : { topK: config.topK }),
    ...(config.stopSequences === undefined ? {} : { stopSequences: config.stopSequences }),
    ...(config.seed === undefined ? {} : { seed: config.seed }),
    ...(config.presencePenalty === undefined ? {} : { presencePenalty: config.presencePenalty }),
    ...(config.frequencyPenalty === undefined ? {} : { frequencyPenalty: config.frequencyPenalty }),
    ...(responseFormat === undefined ? {} : { responseFormat }),
    ...(reasoning === undefined ? {} : { reasoning }),
    stream: false,
  };
  return { value: request, warnings };
}

function parseSystem(wire: GeminiRequest, warnings: string[]): CanonicalTextPart[] {
  const instruction = wire.systemInstruction;
  if (instruction === undefined) return [];
  if (typeof instruction === 'string') return instruction === '' ? [] : [{ type: 'text', text: instruction }];
  const system: CanonicalTextPart[] = [];
  for (const part of instruction.parts ?? []) {
    if (part.text === undefined) warnings.push('systemInstruction: only text parts are carried; a non-text part was dropped');
    else if (part.text !== '') system.push({ type: 'text', text: part.text });
  }
  return system;
}

function parseTools(wire: GeminiRequest, warnings: string[]): CanonicalTool[] {
  const tools: CanonicalTool[] = [];
  for (const tool of wire.tools ?? []) {
    for (const key of Object.keys(tool)) if (key !== 'functionDeclarations') warnings.push(`tools: Gemini's built-in tool ${key} has no canonical form and was dropped`);
    for (const declaration of tool.functionDeclarations ?? []) {
      const parameters = declaration.parametersJsonSchema ?? (declaration.parameters === undefined ? undefined : normalizeGeminiSchema(declaration.parameters));
      tools.push({
        name: declaration.name,
        ...(declaration.description === undefined ? {} : { description: declaration.description }),
        parameters: parameters ?? { type: 'object', properties: {} },
      });
    }
  }
  return tools;
}

function parseToolChoice(wire: GeminiRequest, tools: CanonicalTool[], warnings: string[]): CanonicalToolChoice | undefined {
  const config = wire.toolConfig?.functionCallingConfig;
  const allowed = config?.allowedFunctionNames ?? [];
  switch (config?.mode?.toUpperCase()) {
    case undefined:
    case 'MODE_UNSPECIFIED':
      return undefined;
    case 'AUTO':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'VALIDATED':
      // VALIDATED with allowedFunctionNames is OpenAI's allowed_tools in mode auto: call one of them, or answer.
      warnings.push('toolConfig: mode VALIDATED is carried as auto');
      return allowed.length === 0 ? { type: 'auto' } : toAllowedToolsChoice('auto', allowed, tools, 'toolConfig.functionCallingConfig.allowedFunctionNames', warnings);
    case 'ANY': {
      const only = allowed.length === 1 ? allowed[0] : undefined;
      if (only !== undefined) return { type: 'tool', name: only };
      return allowed.length === 0 ? { type: 'required' } : toAllowedToolsChoice('required', allowed, tools, 'toolConfig.functionCallingConfig.allowedFunctionNames', warnings);
    }
    default:
      warnings.push(`toolConfig: unknown mode ${JSON.stringify(config?.mode)} was ignored`);
      return undefined;
  }
}

function parseResponseFormat(wire: GeminiRequest, warnings: string[]): CanonicalResponseFormat | undefined {
  const config = wire.generationConfig;
  const schema = config?.responseJsonSchema ?? (config?.responseSchema === undefined ? undefined : normalizeGeminiSchema(config.responseSchema));
  const mimeType = config?.responseMimeType;
  if (mimeType === 'application/json') return schema === undefined ? { type: 'json_object' } : { type: 'json_schema', schema };
  if (schema !== undefined) warnings.push('generationConfig: a response schema without responseMimeType application/json was ignored');
  if (mimeType === undefined) return undefined;
  if (mimeType === 'text/plain') return { type: 'text' };
  warnings.push(`generationConfig.responseMimeType ${mimeType} has no canonical form and was not carried`);
  return undefined;
}

function parseReasoning(wire: GeminiRequest, warnings: string[]): CanonicalReasoningConfig | undefined {
  const thinking = wire.generationConfig?.thinkingConfig;
  if (thinking === undefined) return undefined;
  const reasoning: CanonicalReasoningConfig = {};
  if (thinking.includeThoughts !== undefined) reasoning.includeThoughts = thinking.includeThoughts;
  // -1 asks for Gemini's dynamic budget: kept, so thinking stays on (each formatter reads it as its own default).
  if (thinking.thinkingBudget !== undefined && thinking.thinkingBudget >= -1) reasoning.budgetTokens = thinking.thinkingBudget;
  else if (thinking.thinkingBudget !== undefined) warnings.push(`generationConfig.thinkingConfig.thinkingBudget ${thinking.thinkingBudget} is not a budget and was ignored`);
  if (thinking.thinkingLevel !== undefined) {
    const level = thinking.thinkingLevel.toLowerCase();
    if (isEffort(level)) reasoning.effort = level;
    else warnings.push(`generationConfig.thinkingConfig.thinkingLevel ${thinking.thinkingLevel} has no canonical form`);
  }
  return Object.keys(reasoning).length === 0 ? undefined : reasoning;
}
