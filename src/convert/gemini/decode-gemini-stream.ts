import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import type { CanonicalStreamPart, StreamDecoder } from '../../canonical/conversion.js';
import { createGeminiPartialArgsAccumulator, type GeminiPartialArgsAccumulator } from './accumulate-gemini-partial-args.js';
import { geminiResponseSchema, type GeminiFunctionCall, type GeminiPart, type GeminiResponse } from './gemini-wire-schema.js';
import { newCallIdNonce } from '../shared/new-call-id-nonce.js';
import { makeGeminiToolCallId } from './make-gemini-tool-call-id.js';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.js';
import { readGeminiCreateTime } from './read-gemini-create-time.js';
import { parseGeminiThoughtSignature } from './map-gemini-thought-signature.js';
import { readThoughtSignature } from './read-thought-signature.js';
import { countGroundingSearches, groundingQueriesOf } from './count-grounding-searches.js';
import { keepEarlierShares, readGeminiUsage, reportsGeminiCandidates, reportsGeminiOutput, withGroundingSearches } from './read-gemini-usage.js';
import { collectUncarriedCandidateText } from './collect-uncarried-candidate-text.js';
import { toReasoningStreamPart } from '../shared/map-opaque-reasoning.js';

/**
 * Gemini `streamGenerateContent?alt=sse` events → canonical parts, chunk by chunk. Each event is a whole
 * GenerateContentResponse; its usage is cumulative (a `usage` part is emitted when it changes) and the
 * finish reason waits for `end()`, since usage may still follow it. A report without output counts before
 * the answer's finish (Gemini 2.0-class streams send the prompt count alone until the last chunk) is the
 * input only (an `input-usage` part), never a final usage of 0 output; so is a report without
 * `candidatesTokenCount` once text or a call was produced, finish or not. Candidates after the first are
 * not carried, but their text is, for billing (`uncarried-output`). Function calls come whole (one
 * start/delta/end); Vertex's streamed arguments (`willContinue` + `partialArgs`) are forwarded piece by
 * piece. Thought signatures follow the rules of `parseGeminiModelParts`.
 */
export function createGeminiStreamDecoder(): StreamDecoder {
  const warnings: string[] = [];
  let started = false;
  let ended = false;
  let responseId: string | undefined;
  /** Scopes generated call ids when the answer has no responseId. */
  const nonce = newCallIdNonce();
  let toolCalls = 0;
  let streamingCall: { index: number; args: GeminiPartialArgsAccumulator } | undefined;
  let finishRaw: string | undefined;
  let blockReason: string | undefined;
  /** An error chunk came: the upstream failed in-band. */
  let failed = false;
  let usage: NormalizedUsage | undefined;
  let usageKey = '';
  let reportedInputKey = '';
  /** Text or a call was produced (any candidate's): a report must count it (`candidatesTokenCount`) to bill it. */
  let producedOutput = false;
  /** Google searches the answer ran (grounding), billed with its final usage. */
  const searchQueries = new Set<string>();
  let modelVersion: string | undefined;

  const warnOnce = (warning: string) => {
    if (!warnings.includes(warning)) warnings.push(warning);
  };

  function start(out: CanonicalStreamPart[], chunk: GeminiResponse | undefined): void {
    if (started) return;
    started = true;
    responseId = chunk?.responseId;
    out.push({ type: 'start', id: chunk?.responseId ?? '', model: chunk?.modelVersion ?? '', created: readGeminiCreateTime(chunk?.createTime) });
  }

  function closeStreamingCall(out: CanonicalStreamPart[]): void {
    if (streamingCall === undefined) return;
    const { index, args } = streamingCall;
    streamingCall = undefined;
    out.push({ type: 'tool-call-delta', index, argumentsDelta: args.finish() }, { type: 'tool-call-end', index });
  }

  function pushArguments(out: CanonicalStreamPart[], call: GeminiFunctionCall): void {
    if (streamingCall === undefined) return;
    const delta = streamingCall.args.push(call.partialArgs ?? []);
    if (delta !== '') out.push({ type: 'tool-call-delta', index: streamingCall.index, argumentsDelta: delta });
    if (call.args !== undefined) warnOnce('a streamed function call also sent whole args; they were ignored');
  }

  function functionCall(out: CanonicalStreamPart[], call: GeminiFunctionCall): void {
    const startsCall = call.name !== undefined && call.name !== '';
    if (streamingCall !== undefined && !startsCall) {
      pushArguments(out, call);
      if (call.willContinue !== true) closeStreamingCall(out);
      return;
    }
    closeStreamingCall(out);
    if (!startsCall) {
      warnOnce('a functionCall without a name outside a streamed call was dropped');
      return;
    }
    const index = toolCalls++;
    producedOutput = true;
    out.push({ type: 'tool-call-start', index, id: call.id ?? makeGeminiToolCallId(responseId, index, nonce), name: call.name ?? '' });
    if (call.willContinue === true) {
      streamingCall = { index, args: createGeminiPartialArgsAccumulator() };
      pushArguments(out, call);
      return;
    }
    out.push({ type: 'tool-call-delta', index, argumentsDelta: JSON.stringify(call.args ?? {}) }, { type: 'tool-call-end', index });
  }

  function part(out: CanonicalStreamPart[], wirePart: GeminiPart): void {
    const signature = signaturePartOf(wirePart);
    if (wirePart.thought === true) {
      if (wirePart.text !== undefined && wirePart.text !== '') out.push({ type: 'reasoning-delta', text: wirePart.text });
      if (signature !== undefined) out.push(signature);
      return;
    }
    if (signature !== undefined) out.push(signature);
    if (wirePart.functionCall !== undefined) functionCall(out, wirePart.functionCall);
    else if (wirePart.text !== undefined) {
      if (wirePart.text !== '') {
        producedOutput = true;
        out.push({ type: 'text-delta', text: wirePart.text });
      }
    } else if (wirePart.inlineData !== undefined || wirePart.fileData !== undefined) warnOnce('generated media (inlineData/fileData) has no canonical form and was dropped');
    else if (wirePart.executableCode !== undefined || wirePart.codeExecutionResult !== undefined) warnOnce('code execution parts were dropped');
  }

  return {
    warnings,
    push(event) {
      const out: CanonicalStreamPart[] = [];
      if (ended) return out;
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        warnOnce('an upstream event was not JSON and was skipped');
        return out;
      }
      const parsed = geminiResponseSchema.safeParse(json);
      if (!parsed.success) {
        warnOnce(`an upstream event was not a GenerateContentResponse and was skipped: ${parsed.error.issues[0]?.message ?? ''}`);
        return out;
      }
      const chunk = parsed.data;
      start(out, chunk);
      if (chunk.error !== undefined) {
        failed = true;
        closeStreamingCall(out);
        out.push({ type: 'error', message: chunk.error.message ?? 'upstream error', ...(chunk.error.status === undefined ? {} : { code: chunk.error.status }) });
        return out;
      }
      if ((chunk.candidates?.length ?? 0) > 1) {
        warnOnce('several candidates: only the first is carried');
        const uncarried = collectUncarriedCandidateText(chunk.candidates);
        if (uncarried !== '') {
          producedOutput = true;
          out.push({ type: 'uncarried-output', text: uncarried });
        }
      }
      const candidate = chunk.candidates?.[0];
      modelVersion ??= chunk.modelVersion ?? undefined;
      for (const query of groundingQueriesOf(candidate?.groundingMetadata)) searchQueries.add(query);
      for (const wirePart of candidate?.content?.parts ?? []) part(out, wirePart);
      if (candidate?.finishReason !== undefined) finishRaw = candidate.finishReason;
      if (chunk.promptFeedback?.blockReason !== undefined) blockReason = chunk.promptFeedback.blockReason;
      // The usage object of the JSON itself, not zod's copy, is what `raw` keeps.
      const usageMetadata = (json as { usageMetadata?: unknown }).usageMetadata;
      const reported = readGeminiUsage(usageMetadata);
      const interim = finishRaw === undefined && blockReason === undefined && !reportsGeminiOutput(usageMetadata);
      // A report without `candidatesTokenCount` after the answer produced text or a call (Gemini leaves it
      // out when it counts no candidates; some relays leave it out of the last chunk, thinking models write
      // `thoughtsTokenCount` alone) does not count that output: billed, as an interim report is, with the
      // output counted locally — and the thoughts it did count — never as 0 output. It replaces any earlier report.
      const uncountedOutput = producedOutput && !reportsGeminiCandidates(usageMetadata);
      if (reported !== undefined && (interim || uncountedOutput)) {
        // An earlier report that counted output stands against a later one of the prompt alone.
        if (!uncountedOutput && usage !== undefined) return out;
        // The prompt count alone, mid-answer: billed with the output counted locally if the answer ends here,
        // and with the searches run so far (an answer cut after its grounding still bills them).
        const searches = countGroundingSearches(searchQueries, modelVersion);
        const reasoning = uncountedOutput && reported.output.reasoning > 0 ? reported.output.reasoning : undefined;
        const key = `${reported.input.total}/${searches}/${reasoning ?? ''}`;
        if (key !== reportedInputKey || usage !== undefined) out.push({ type: 'input-usage', input: reported.input, ...(searches > 0 ? { webSearches: searches } : {}), ...(reasoning === undefined ? {} : { reasoning }) });
        reportedInputKey = key;
        if (uncountedOutput) {
          usage = undefined;
          usageKey = '';
        }
        return out;
      }
      const next = reported === undefined ? undefined : keepEarlierShares(reported, usage, usageMetadata);
      if (next !== undefined) {
        const key = JSON.stringify([next.input, next.output, searchQueries.size]);
        // With the searches run so far: an answer cut after its grounding still bills them.
        if (key !== usageKey) out.push({ type: 'usage', usage: withGroundingSearches(next, countGroundingSearches(searchQueries, modelVersion)) });
        usage = next;
        usageKey = key;
      }
      return out;
    },
    end() {
      const out: CanonicalStreamPart[] = [];
      if (ended) return out;
      ended = true;
      start(out, undefined);
      if (streamingCall !== undefined) warnOnce('the stream ended inside a streamed function call; its arguments were closed');
      closeStreamingCall(out);
      // An in-band error ends the answer as failed, as the Chat and Anthropic decoders end theirs: never as a stop.
      const finishReason = failed
        ? { unified: 'error' as const, raw: finishRaw }
        : finishRaw === undefined && blockReason !== undefined
          ? { unified: 'content_filter' as const, raw: blockReason }
          : mapGeminiFinishReason(finishRaw, toolCalls > 0);
      out.push({ type: 'finish', finishReason, usage: usage === undefined ? undefined : withGroundingSearches(usage, countGroundingSearches(searchQueries, modelVersion)) });
      return out;
    },
    get complete() {
      return failed || finishRaw !== undefined || blockReason !== undefined;
    },
  };
}

/** A part's thought signature as a stream part: redacted reasoning when it carries some (another gateway's Gemini answer). */
function signaturePartOf(wirePart: GeminiPart): CanonicalStreamPart | undefined {
  const signature = readThoughtSignature(wirePart);
  if (signature === undefined) return undefined;
  return toReasoningStreamPart(parseGeminiThoughtSignature(signature));
}
