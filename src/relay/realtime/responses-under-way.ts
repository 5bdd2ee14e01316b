import { ConversationInput } from './conversation-input.js';
import { defaultAudioBytesPerSecond } from './read-realtime-audio.js';
import type { ResponseRequest } from './read-response-request.js';
import { ResponseCount } from './response-count.js';
import { doneWithoutCreated, echoesNothing, ResponseRequestQueue } from './response-request-queue.js';
import type { CreatedResponse } from './select-response-request.js';

/**
 * What a realtime session's responses are doing, counted locally from the frames relayed: which are under
 * way (asked for, created), the text and audio each produced so far, the conversation input the next one
 * reads, when the current one started and gave its first token. RealtimeBilling prices and settles from
 * it: a response's counts are what it is billed when its usage never comes (cut, or an upstream that
 * reports none; response-count.ts).
 */
export class ResponsesUnderWay {
  /**
   * The responses under way, by id, each with the text and audio it produced so far (counted locally, for a
   * response cut before its usage): two at once (out-of-band responses) each keep their own.
   */
  private readonly underWay = new Map<string, ResponseCount>();
  /** The `response.create` events relayed upstream whose `response.created` has not come yet (response-request-queue.ts). */
  private readonly requested = new ResponseRequestQueue();
  /**
   * The text of the items the upstream added to the default conversation (client messages, tool results)
   * since the last response that reads the conversation was created: that next response's input, billed
   * when its usage never comes.
   */
  private readonly conversationInput = new ConversationInput();
  /** The keys of `underWay` made up for a `response.created` that named no id. */
  private readonly unnamed = new Set<string>();
  /** How many such keys were made: each new one is new (the count under way would repeat one still in use once an earlier one is done). */
  private unnamedMade = 0;
  /** Deltas of no known response (an upstream that omits `response_id`): the text and audio of whichever is cut. */
  private unattributed = new ResponseCount();
  /** The session's output audio format, as bytes a second (`session.created` / `session.updated`). */
  private outputAudioRate = defaultAudioBytesPerSecond;
  /** When the response billed next started: the first to be under way after the last settlement. */
  private started: number;
  private firstToken: number | undefined;

  constructor(private readonly now: () => number) {
    this.started = now();
  }

  /** The client's `response.create` was relayed upstream: a response is asked for. */
  asked(request: ResponseRequest): void {
    this.requested.add(request);
  }

  /** The upstream refused the client event `eventId` (an `error` naming it): no response comes of it when it was a `response.create`. */
  refused(eventId: string): void {
    this.requested.refused(eventId);
  }

  /**
   * A `response.created`: `outputAudioRate` is the output audio format it names for itself (bytes a
   * second), when it does; `created`, what it echoes of the request it answers — none for a response server
   * VAD made (select-response-request.ts).
   */
  created(responseId: string | undefined, outputAudioRate?: number, created: CreatedResponse = echoesNothing): void {
    const request = this.requested.take(created);
    if (this.underWay.size === 0) this.started = this.now();
    const key = responseId ?? `unnamed-${(this.unnamedMade += 1)}`;
    if (responseId === undefined) this.unnamed.add(key);
    const count = new ResponseCount(outputAudioRate);
    if (request?.ownInputText !== undefined) count.input.add(request.ownInputText);
    else {
      // Read by this response: the items added before it was created (a later one is the next response's).
      for (const text of this.conversationInput.take()) count.input.add(text);
    }
    this.underWay.set(key, count);
  }

  /** The upstream added an item to the default conversation: `text`, what a client wrote in it ('' for audio). */
  itemAdded(itemId: string | undefined, text: string): void {
    this.conversationInput.add(itemId, text);
  }

  /** The upstream removed an item from the conversation: no response reads it any more. */
  itemDeleted(itemId: string): void {
    this.conversationInput.delete(itemId);
  }

  textDelta(responseId: string | undefined, text: string): void {
    this.firstToken ??= this.now();
    this.countOf(responseId).text.add(text);
  }

  /** An audio output delta of `bytes` bytes of audio, in the response's output format (else the session's). */
  audioDelta(responseId: string | undefined, bytes: number): void {
    this.firstToken ??= this.now();
    const count = this.countOf(responseId);
    count.addAudio(bytes, count.bytesPerSecond ?? this.outputAudioRate);
  }

  /** The upstream's session names its output audio format (bytes a second). */
  outputAudioRateSet(bytesPerSecond: number): void {
    this.outputAudioRate = bytesPerSecond;
  }

  /** A response is under way: named by the upstream, or asked for and not named yet. */
  get any(): boolean {
    return this.underWay.size > 0 || this.requested.size > 0;
  }

  /**
   * The responses under way, by their upstream ids — undefined for one whose id was never seen (or not
   * yet: asked for, not named) — so each can be cancelled by its own (an out-of-band response is cancelled
   * by no other way).
   */
  get ids(): (string | undefined)[] {
    return [...[...this.underWay.keys()].map((key) => (this.unnamed.has(key) ? undefined : key)), ...Array.from({ length: this.requested.size }, () => undefined)];
  }

  /** A response was created (named by the upstream) and not done: one the session's end cuts. */
  get cut(): boolean {
    return this.underWay.size > 0;
  }

  /** When the response billed next started, and when its first token came (undefined: none yet). */
  get timing(): { startedAt: number; firstTokenAt: number | undefined } {
    return { startedAt: this.started, firstTokenAt: this.firstToken };
  }

  /** A settlement was made: the next response's time starts now, with no first token yet. */
  settled(): void {
    this.firstToken = undefined;
    this.started = this.now();
  }

  /**
   * A `response.done` (`done`, what it echoes of its request): the finished response's own counts, out of
   * those under way (with the unattributed ones when it was the last).
   */
  takeDone(responseId: string | undefined, done: CreatedResponse = echoesNothing): ResponseCount[] {
    // A response whose response.created never came answers the request it echoes (response-request-queue.ts).
    if (doneWithoutCreated(responseId, this.underWay)) this.requested.take(done);
    const key = responseId !== undefined && this.underWay.has(responseId) ? responseId : this.underWay.keys().next().value;
    const tallies: ResponseCount[] = [];
    if (key !== undefined) {
      tallies.push(this.underWay.get(key) ?? new ResponseCount());
      this.underWay.delete(key);
      this.unnamed.delete(key);
    }
    if (this.underWay.size === 0) {
      tallies.push(this.unattributed);
      this.unattributed = new ResponseCount();
    }
    return tallies;
  }

  /** Every count the session's end finds: the responses cut, and deltas of none known. */
  all(): ResponseCount[] {
    return [...this.underWay.values(), this.unattributed];
  }

  private countOf(responseId: string | undefined): ResponseCount {
    return responseId === undefined ? this.unattributed : (this.underWay.get(responseId) ?? this.createdLate(responseId));
  }

  /** A delta of a response whose `response.created` was not seen: counted as under way from here. */
  private createdLate(responseId: string): ResponseCount {
    const tally = new ResponseCount();
    if (this.underWay.size === 0) this.started = this.now();
    this.underWay.set(responseId, tally);
    return tally;
  }
}
