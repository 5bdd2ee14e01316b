import { isRecord } from '../shared/is-record.js';

/**
 * Pure: the `GenerateContentResponse` chunks of one `:streamGenerateContent` answer, merged into the one
 * response `:generateContent` would have given — field for field, so what the gateway does not model
 * (groundingMetadata, citationMetadata, safetyRatings, urlContextMetadata, logprobs, promptFeedback …)
 * reaches a non-streaming Gemini client from a Gemini channel as the upstream sent it.
 *
 * - Top-level fields: the latest chunk's value wins (usageMetadata is cumulative; modelVersion and
 *   responseId repeat); promptFeedback comes in the first chunk and is kept.
 * - Candidates are matched by `index` (their position when absent). Their parts are concatenated in order;
 *   a text part joins the text part before it when both are plain text of the same kind (thought or not)
 *   and the earlier one carries no signature yet (a signature sent on a later, often empty, text part
 *   moves onto the joined part); an empty text part without a signature is dropped. Every other candidate
 *   field takes its latest value, except citationMetadata, whose `citationSources` add up.
 */
export function mergeGeminiChunks(chunks: readonly unknown[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const candidates = new Map<number, MergedCandidate>();
  for (const chunk of chunks) {
    if (!isRecord(chunk)) continue;
    for (const [key, value] of Object.entries(chunk)) {
      if (key === 'candidates') continue;
      if (key === 'promptFeedback' && merged.promptFeedback !== undefined) continue;
      merged[key] = value;
    }
    if (!Array.isArray(chunk.candidates)) continue;
    chunk.candidates.forEach((candidate, position) => {
      if (!isRecord(candidate)) return;
      const index = typeof candidate.index === 'number' ? candidate.index : position;
      let into = candidates.get(index);
      if (into === undefined) {
        into = { fields: {}, role: undefined, parts: [] };
        candidates.set(index, into);
      }
      mergeCandidate(into, candidate);
    });
  }
  if (candidates.size > 0) {
    merged.candidates = [...candidates.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, candidate]) => ({ content: { parts: candidate.parts, ...(candidate.role === undefined ? {} : { role: candidate.role }) }, ...candidate.fields }));
  }
  return merged;
}

interface MergedCandidate {
  fields: Record<string, unknown>;
  role: unknown;
  parts: Record<string, unknown>[];
}

function mergeCandidate(into: MergedCandidate, candidate: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(candidate)) {
    if (key === 'content') continue;
    if (key === 'citationMetadata') {
      into.fields.citationMetadata = mergeCitations(into.fields.citationMetadata, value);
      continue;
    }
    into.fields[key] = value;
  }
  const content = candidate.content;
  if (!isRecord(content)) return;
  if (content.role !== undefined) into.role = content.role;
  if (!Array.isArray(content.parts)) return;
  for (const part of content.parts) if (isRecord(part)) appendPart(into.parts, part);
}

function appendPart(parts: Record<string, unknown>[], part: Record<string, unknown>): void {
  const previous = parts.at(-1);
  if (isTextPart(part) && previous !== undefined && isTextPart(previous) && previous.thoughtSignature === undefined && (previous.thought === true) === (part.thought === true)) {
    previous.text = `${previous.text as string}${part.text as string}`;
    if (part.thoughtSignature !== undefined) previous.thoughtSignature = part.thoughtSignature;
    return;
  }
  if (isTextPart(part) && part.text === '' && part.thoughtSignature === undefined) return;
  parts.push({ ...part });
}

/** A part with text and nothing else but the thought flag and a signature. */
function isTextPart(part: Record<string, unknown>): boolean {
  if (typeof part.text !== 'string') return false;
  for (const key of Object.keys(part)) if (key !== 'text' && key !== 'thought' && key !== 'thoughtSignature') return false;
  return true;
}

function mergeCitations(earlier: unknown, later: unknown): unknown {
  if (!isRecord(earlier) || !Array.isArray(earlier.citationSources)) return later;
  if (!isRecord(later) || !Array.isArray(later.citationSources)) return earlier;
  return { ...later, citationSources: [...earlier.citationSources, ...later.citationSources] };
}
