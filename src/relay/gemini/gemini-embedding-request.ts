import { estimatedTokensPerImage } from '../count-tokens.js';
import { invalidParameter, missingParameter } from '../validate-body.js';
import type { PromptText } from '../openai/collect-prompt-text.js';

/** Gemini's embedding actions (protocols.md §7): one content, or a batch of requests each naming its model. */
export type GeminiEmbeddingAction = 'embedContent' | 'batchEmbedContents';

/** The actions, as Gemini's model list names them (`supportedGenerationMethods`). */
export const geminiEmbeddingActions: readonly GeminiEmbeddingAction[] = ['embedContent', 'batchEmbedContents'];

/** The channel types an embedding action can be sent to: another style has no such call. */
export const geminiEmbeddingChannelTypes: ReadonlySet<string> = new Set(['gemini']);

/**
 * Pure: checks an embedding body and reads what it embeds (every `text` part, each counted alone; media parts
 * at 1000 tokens each, as images are counted everywhere).
 * A batch needs at least one request, each with a `content`, and any `model` a request (or a single `:embedContent` body) names must be the
 * path's (`models/<name>`), as Gemini requires: the batch is routed and priced by the path's model, and an
 * upstream that honoured another would serve it at this one's price. Throws the 400 naming the field.
 */
export function readGeminiEmbeddingText(action: GeminiEmbeddingAction, body: Record<string, unknown>, model: string): PromptText {
  const prompt: PromptText = { texts: [], extraTokens: 0 };
  if (action === 'embedContent') {
    // The single request's own `model` too (EmbedContentRequest.model): relayed as sent when unmapped.
    if (!namesPathModel(body.model, model)) throw invalidParameter('model', `must be the model of the path, models/${model}`);
    collectParts(body.content, 'content', prompt);
    collectTitle(body, prompt);
    return prompt;
  }
  const { requests } = body;
  if (requests === undefined || requests === null) throw missingParameter('requests');
  if (!Array.isArray(requests) || requests.length === 0) throw invalidParameter('requests', 'must be a non-empty array of embedContent requests');
  for (const [index, request] of requests.entries()) {
    if (request === null || typeof request !== 'object' || Array.isArray(request)) throw invalidParameter(`requests.${index}`, 'must be an object');
    if (!namesPathModel((request as Record<string, unknown>).model, model)) {
      throw invalidParameter(`requests.${index}.model`, `must be the model of the path, models/${model}`);
    }
    collectParts((request as Record<string, unknown>).content, `requests.${index}.content`, prompt);
    collectTitle(request as Record<string, unknown>, prompt);
  }
  return prompt;
}

/** Whether a request's `model` field is absent or names the path's model (`models/<name>` or bare). */
function namesPathModel(named: unknown, model: string): boolean {
  return named === undefined || named === null || named === `models/${model}` || named === model;
}

/** A document's `title` (RETRIEVAL_DOCUMENT) is embedded with it: counted as text. */
function collectTitle(request: Record<string, unknown>, prompt: PromptText): void {
  if (typeof request.title === 'string') prompt.texts.push(request.title);
}

/** Text parts by their text; media parts (`inlineData`, `fileData`: multimodal embedding models take them) at the per-image assumption. */
function collectParts(content: unknown, path: string, prompt: PromptText): void {
  if (content === undefined || content === null) throw missingParameter(path);
  if (typeof content !== 'object' || Array.isArray(content)) throw invalidParameter(path, 'must be a Content object with parts');
  const { parts } = content as { parts?: unknown };
  if (!Array.isArray(parts) || parts.length === 0) throw invalidParameter(`${path}.parts`, 'must be a non-empty array');
  for (const [index, part] of parts.entries()) {
    if (part === null || typeof part !== 'object' || Array.isArray(part)) throw invalidParameter(`${path}.parts.${index}`, 'must be a Part object (text, inlineData or fileData)');
    const { text, inlineData, fileData } = part as { text?: unknown; inlineData?: unknown; fileData?: unknown };
    if (typeof text === 'string') prompt.texts.push(text);
    if (inlineData != null || fileData != null) prompt.extraTokens += estimatedTokensPerImage;
  }
}

/**
 * The body for the upstream model: the client's bytes unless the model is mapped, when every batch request's
 * `model` (`models/<name>`) names the upstream one too, as Gemini requires them to match the path.
 */
export function geminiEmbeddingBody(action: GeminiEmbeddingAction, body: Record<string, unknown>, rawBody: Buffer | undefined, model: string, upstreamModel: string): string | Buffer {
  if (upstreamModel === model && rawBody !== undefined) return rawBody;
  if (action === 'embedContent') return JSON.stringify(body.model === undefined ? body : Object.assign({}, body, { model: `models/${upstreamModel}` }));
  const requests = (body.requests as Record<string, unknown>[]).map((request) => (request.model === undefined ? request : Object.assign({}, request, { model: `models/${upstreamModel}` })));
  return JSON.stringify(Object.assign({}, body, { requests }));
}
