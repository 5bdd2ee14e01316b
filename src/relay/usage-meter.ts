import type { NormalizedUsage } from '../billing/normalized-usage.js';
import { TokenTally } from './token-tally.js';
import type { ClientStreamSlot } from './client-stream-slot.js';

/** What one attempt produced, as the meter counted it. */
export interface ProducedOutput {
  upstreamUsage: NormalizedUsage | undefined;
  reportedInput: NormalizedUsage['input'] | undefined;
  reportedWebSearches: number | undefined;
  reportedReasoning: number | undefined;
  servedTier: string | undefined;
  askedTier: string | undefined;
  outputTally: TokenTally;
  reasoningTally: TokenTally;
  audioTranscriptTally: TokenTally;
  firstTokenAt: number | undefined;
  deliveredCalls: number | undefined;
  unreportedOutputTokens: number;
  unsentPromptTokens: number;
  unsentPromptTexts: readonly string[];
}

/**
 * What one relay request produced, filled while the response flows, read once at settlement — also
 * after a client abort or an upstream cut, which is why it lives outside the attempt.
 */
export class UsageMeter {
  /** Usage as the upstream reported it (the last report wins: the final one is authoritative). */
  upstreamUsage: NormalizedUsage | undefined;
  /** The input an upstream reported before its answer (Anthropic's message_start): used when no final usage comes. */
  reportedInput: NormalizedUsage['input'] | undefined;
  /** Web searches an upstream reported before its final usage (Gemini grounding, Responses' finished `web_search_call` items): billed with a local count. */
  reportedWebSearches: number | undefined;
  /**
   * The reasoning a report counted when it left out the visible output (Gemini's `thoughtsTokenCount`
   * without `candidatesTokenCount`): billed as reported, the visible output counted locally.
   */
  reportedReasoning: number | undefined;
  /**
   * The tier an OpenAI answer says served it, read where its usage is not (`service_tier` of a Chat
   * answer or its chunks; of a Responses stream's opening `response.created`, its earliest event): billed
   * with the usage when that names none, and with a local count (settle-request.ts).
   */
  servedTier: string | undefined;
  /**
   * The tier the attempt's request went upstream with when it asked for OpenAI's Priority tier (a same-style
   * Chat or Responses request): what an answer billed by a local count is charged at when none of its
   * events named the tier that served it (settle-request.ts).
   */
  askedTier: string | undefined;
  /** Every produced text (reasoning included), counted locally when no usage is reported. */
  outputTally = new TokenTally();
  /** The reasoning text alone (also in `outputTally`): taken out of it when `reportedReasoning` bills the reasoning. */
  reasoningTally = new TokenTally();
  /**
   * The transcripts of the speech an answer without usage made (Chat's `audio.transcript`, OpenAI's audio
   * models): counted apart from `outputTally`, as that many tokens of audio output (settle-request.ts).
   */
  audioTranscriptTally = new TokenTally();
  firstTokenAt: number | undefined;
  /** Per-call endpoints: how many calls (images) the answer delivered, when it says; settlement charges these. */
  deliveredCalls: number | undefined;
  /** Output that is not text (images) of an answer without usage: added to the local count of the output. */
  unreportedOutputTokens = 0;
  /**
   * Prompt tokens the request's local count holds that this attempt did not send: the opaque reasoning a
   * conversion left out (attempt-converted-upstream.ts). Taken off a local count of the prompt.
   */
  unsentPromptTokens = 0;
  /**
   * Texts the request's local count holds that this attempt did not send: the thinking of the blocks the
   * passthrough cleaning dropped (collect-unsent-reasoning-texts.ts), or of the reasoning parts a conversion
   * left out (the request formatter's `unsentReasoningTexts`). Their exact count is taken off a
   * local count of the prompt (counted only then: the tokenizer loads for local counts alone).
   */
  unsentPromptTexts: readonly string[] = [];
  /** Something went to the client: from here on nothing may be retried. */
  committed = false;
  clientAborted = false;
  /** A non-streamed answer's 2xx arrived: the upstream produced it whole, only its body is still to come. */
  wholeAnswerArrived = false;
  /**
   * The upstream's stream sent its own error chunk (a Chat stream's `{"error": …}`): it produces no more of
   * the answer, though a usage report may still follow (pipe-openai-stream.ts).
   */
  answerEndedInError = false;
  /**
   * How this stream tells that its answer is whole but for the usage report, and the last event it read
   * (on the Chat path held or parsed, its bytes as a one-byte string; on the Responses path its data). A module function, not a closure made per stream:
   * a one-choice Chat or Completions stream's finish_reason (`givesFinishReason`), a Responses stream's
   * finished message (`endsResponsesMessage`); undefined for a stream that is never waited for.
   */
  answerEndsWith: ((event: string) => boolean) | undefined;
  lastStreamEvent: string | undefined;
  /** The client left while the answer's usage report was still to come: the upstream is read on for it. */
  waitingForUsage = false;
  /** Why the response ended early, when it did. */
  interruption: string | undefined;
  /** The answer's id as the upstream gave it (a stored Responses answer is continued by it). */
  responseId: string | undefined;
  /**
   * The ids of a Responses answer's output items, as they are announced (the first
   * `maxRememberedItemsPerAnswer`): a stored one can be read back by an `item_reference`. A new array per
   * attempt.
   */
  outputItemIds: string[] = [];
  /**
   * Called when the answer's id is known (its opening event), when it announces an output item, and again
   * once the answer is complete (its final usage read), each time before what it read reaches the client.
   */
  onAnswerNoted: (() => void) | undefined;
  /**
   * A streaming request's client stream, for keep-alive pings: each attempt that opens its SSE stream to
   * the client puts its writer (and held opening) here (client-stream-slot.ts).
   */
  stream: ClientStreamSlot | undefined;

  /** Whether the upstream's answer is read no further: its client left, and no usage report is awaited. */
  stopsReading(): boolean {
    return this.clientAborted && !(this.waitingForUsage && this.upstreamUsage === undefined);
  }

  /**
   * Whether the upstream has produced its whole answer and only its usage report is still to come (a
   * one-choice stream whose finish was read, a Responses stream whose message was finished, a non-streamed
   * answer whose 2xx arrived, a stream that failed with its own error chunk). A client that leaves
   * then is waited out for that report (USAGE_WAIT_SECONDS): reading on costs the upstream nothing more
   * (unless it sent its 2xx before generating), and its report — reasoning, cache reads — is what it bills,
   * where a local count of the visible text is not.
   */
  answerProduced(): boolean {
    return this.wholeAnswerArrived || this.answerEndedInError || (this.answerEndsWith !== undefined && this.lastStreamEvent !== undefined && this.answerEndsWith(this.lastStreamEvent));
  }

  /**
   * Whether the attempt produced anything its upstream bills before it failed: text, or a web search that
   * ran (an answer refused as the request's fault after its searches — the context they filled too long —
   * is billed them, not nothing).
   */
  producedBillable(): boolean {
    return this.firstTokenAt !== undefined || (this.reportedWebSearches ?? 0) > 0;
  }

  /**
   * Web searches an upstream bills but does not count in its answer (a Chat search-preview call runs one):
   * billed with the usage it reports, or with a local count.
   */
  noteWebSearches(count: number): void {
    this.reportedWebSearches = Math.max(this.reportedWebSearches ?? 0, count);
    const usage = this.upstreamUsage;
    if (usage !== undefined && (usage.webSearches ?? 0) < count) this.upstreamUsage = { ...usage, webSearches: count };
  }

  /**
   * What the attempt so far produced, set apart: an attempt that failed in-band after its upstream answered
   * is billed if no later attempt produces anything (`restoreAttempt`).
   */
  setAsideAttempt(): ProducedOutput {
    return { upstreamUsage: this.upstreamUsage, reportedInput: this.reportedInput, reportedWebSearches: this.reportedWebSearches, reportedReasoning: this.reportedReasoning, servedTier: this.servedTier, askedTier: this.askedTier, outputTally: this.outputTally, reasoningTally: this.reasoningTally, audioTranscriptTally: this.audioTranscriptTally, firstTokenAt: this.firstTokenAt, deliveredCalls: this.deliveredCalls, unreportedOutputTokens: this.unreportedOutputTokens, unsentPromptTokens: this.unsentPromptTokens, unsentPromptTexts: this.unsentPromptTexts };
  }

  restoreAttempt(produced: ProducedOutput): void {
    this.upstreamUsage = produced.upstreamUsage;
    this.reportedInput = produced.reportedInput;
    this.reportedWebSearches = produced.reportedWebSearches;
    this.reportedReasoning = produced.reportedReasoning;
    this.servedTier = produced.servedTier;
    this.askedTier = produced.askedTier;
    this.outputTally = produced.outputTally;
    this.reasoningTally = produced.reasoningTally;
    this.audioTranscriptTally = produced.audioTranscriptTally;
    this.firstTokenAt = produced.firstTokenAt;
    this.deliveredCalls = produced.deliveredCalls;
    this.unreportedOutputTokens = produced.unreportedOutputTokens;
    this.unsentPromptTokens = produced.unsentPromptTokens;
    this.unsentPromptTexts = produced.unsentPromptTexts;
  }

  /**
   * Before a retry on another channel (the previous attempt failed before anything reached the client):
   * what that attempt produced is not this request's answer, so it is neither counted nor reported again.
   */
  startNextAttempt(): void {
    this.upstreamUsage = undefined;
    this.reportedInput = undefined;
    this.reportedWebSearches = undefined;
    this.reportedReasoning = undefined;
    this.servedTier = undefined;
    this.askedTier = undefined;
    this.outputTally = new TokenTally();
    this.reasoningTally = new TokenTally();
    this.audioTranscriptTally = new TokenTally();
    this.firstTokenAt = undefined;
    this.deliveredCalls = undefined;
    this.unreportedOutputTokens = 0;
    this.unsentPromptTokens = 0;
    this.unsentPromptTexts = [];
    this.interruption = undefined;
    this.responseId = undefined;
    this.outputItemIds = [];
    this.wholeAnswerArrived = false;
    this.answerEndedInError = false;
    this.answerEndsWith = undefined;
    this.lastStreamEvent = undefined;
  }
}
