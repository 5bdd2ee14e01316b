import { z } from 'zod';
import { maxOutputTokensLimit } from '../../canonical/canonical-request.js';

/**
 * Minimal, loose schemas of the Gemini generateContent wire format (ai.google.dev/api/generate-content,
 * ai.google.dev/api/caching#Content). Only the fields the converters read are declared; zod drops the
 * rest, and the parsers name the ones that matter in warnings. Bodies are camelCased first
 * (`camelizeGeminiKeys`): the REST API accepts proto JSON, where `inline_data` and `inlineData` are equal.
 */

/** Vertex only: one piece of a streamed function-call argument (`streamFunctionCallArguments`). */
export const geminiPartialArgSchema = z.object({
  jsonPath: z.string(),
  stringValue: z.string().optional(),
  numberValue: z.number().optional(),
  boolValue: z.boolean().optional(),
  nullValue: z.unknown().optional(),
  willContinue: z.boolean().optional(),
});
export type GeminiPartialArg = z.infer<typeof geminiPartialArgSchema>;

const blobSchema = z.object({ mimeType: z.string(), data: z.string() });
const fileDataSchema = z.object({ mimeType: z.string().optional(), fileUri: z.string() });

export const geminiFunctionCallSchema = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  args: z.record(z.unknown()).optional(),
  partialArgs: z.array(geminiPartialArgSchema).optional(),
  willContinue: z.boolean().optional(),
});
export type GeminiFunctionCall = z.infer<typeof geminiFunctionCallSchema>;

export const geminiFunctionResponseSchema = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  response: z.record(z.unknown()).optional(),
  /** Gemini 3: media returned by the function. */
  parts: z.array(z.object({ inlineData: blobSchema.optional(), fileData: fileDataSchema.optional() })).optional(),
});
export type GeminiFunctionResponse = z.infer<typeof geminiFunctionResponseSchema>;

export const geminiPartSchema = z.object({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: blobSchema.optional(),
  fileData: fileDataSchema.optional(),
  functionCall: geminiFunctionCallSchema.optional(),
  functionResponse: geminiFunctionResponseSchema.optional(),
  executableCode: z.unknown().optional(),
  codeExecutionResult: z.unknown().optional(),
});
export type GeminiPart = z.infer<typeof geminiPartSchema>;

export const geminiContentSchema = z.object({
  role: z.string().optional(),
  parts: z.array(geminiPartSchema).optional(),
});
export type GeminiContent = z.infer<typeof geminiContentSchema>;

const functionDeclarationSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  parameters: z.record(z.unknown()).optional(),
  parametersJsonSchema: z.record(z.unknown()).optional(),
});

export const geminiToolSchema = z
  .object({ functionDeclarations: z.array(functionDeclarationSchema).optional() })
  .passthrough();

const thinkingConfigSchema = z.object({
  includeThoughts: z.boolean().optional(),
  thinkingBudget: z.number().int().optional(),
  thinkingLevel: z.string().optional(),
});

export const geminiGenerationConfigSchema = z
  .object({
    temperature: z.number().optional(),
    topP: z.number().optional(),
    topK: z.number().optional(),
    // 0 is proto3's "unset": Gemini would apply no limit at all, beyond what was reserved.
    maxOutputTokens: z.number().int().positive().max(maxOutputTokensLimit).optional(),
    // Google generates 1 to 8 candidates (0: unset).
    candidateCount: z.number().int().min(0).max(8).optional(),
    stopSequences: z.array(z.string()).optional(),
    seed: z.number().int().optional(),
    presencePenalty: z.number().optional(),
    frequencyPenalty: z.number().optional(),
    responseMimeType: z.string().optional(),
    responseSchema: z.record(z.unknown()).optional(),
    responseJsonSchema: z.record(z.unknown()).optional(),
    thinkingConfig: thinkingConfigSchema.optional(),
  })
  .passthrough();

export const geminiRequestSchema = z
  .object({
    model: z.string().optional(),
    contents: z.array(geminiContentSchema),
    systemInstruction: z.union([z.string(), geminiContentSchema]).optional(),
    tools: z.array(geminiToolSchema).optional(),
    toolConfig: z
      .object({
        functionCallingConfig: z.object({ mode: z.string().optional(), allowedFunctionNames: z.array(z.string()).optional() }).optional(),
      })
      .passthrough()
      .optional(),
    generationConfig: geminiGenerationConfigSchema.optional(),
  })
  .passthrough();
export type GeminiRequest = z.infer<typeof geminiRequestSchema>;

export const geminiUsageMetadataSchema = z
  .object({
    promptTokenCount: z.number().optional(),
    candidatesTokenCount: z.number().optional(),
    totalTokenCount: z.number().optional(),
    cachedContentTokenCount: z.number().optional(),
    thoughtsTokenCount: z.number().optional(),
    toolUsePromptTokenCount: z.number().optional(),
  })
  .passthrough();
export type GeminiUsageMetadata = z.infer<typeof geminiUsageMetadataSchema>;

export const geminiCandidateSchema = z
  .object({
    content: geminiContentSchema.optional(),
    finishReason: z.string().optional(),
    index: z.number().optional(),
    groundingMetadata: z.unknown().optional(),
    citationMetadata: z.unknown().optional(),
  })
  .passthrough();

export const geminiResponseSchema = z
  .object({
    candidates: z.array(geminiCandidateSchema).optional(),
    promptFeedback: z.object({ blockReason: z.string().optional() }).passthrough().optional(),
    /** Read apart by `readGeminiUsage`, which keeps the object itself as `raw`. */
    usageMetadata: z.unknown().optional(),
    modelVersion: z.string().optional(),
    responseId: z.string().optional(),
    /** Vertex AI only. */
    createTime: z.string().optional(),
    /** An error sent in place of a response (Google's error envelope, also seen mid-stream). */
    error: z.object({ code: z.number().optional(), message: z.string().optional(), status: z.string().optional() }).passthrough().optional(),
  })
  .passthrough();
export type GeminiResponse = z.infer<typeof geminiResponseSchema>;
