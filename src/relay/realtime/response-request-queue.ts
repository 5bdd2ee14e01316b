import type { ResponseRequest } from './read-response-request.js';
import { selectResponseRequest, type CreatedResponse } from './select-response-request.js';

/** A response event that tells neither field of the request it answers (it answers the oldest). */
export const echoesNothing: CreatedResponse = { conversationId: undefined, metadata: undefined };

/**
 * The `response.create` events relayed upstream whose `response.created` has not come yet (the client's
 * `event_id`, and the text of an input of the response's own), oldest first: under way upstream all the
 * same, so a client that leaves now gets them cancelled and waited for. Each leaves the queue when a
 * response answers it (select-response-request.ts) or the upstream refuses it.
 */
export class ResponseRequestQueue {
  private readonly requested: ResponseRequest[] = [];

  /** The client's `response.create` was relayed upstream: a response is asked for. */
  add(request: ResponseRequest): void {
    this.requested.push(request);
  }

  /** The upstream refused the client event `eventId` (an `error` naming it): no response comes of it when it was a `response.create`. */
  refused(eventId: string): void {
    const index = this.requested.findIndex((request) => request.eventId === eventId);
    if (index >= 0) this.requested.splice(index, 1);
  }

  /**
   * The waiting `response.create` a response answers, by what it echoes (select-response-request.ts), taken
   * off the queue; undefined when it answers none (server VAD made it).
   */
  take(echoed: CreatedResponse = echoesNothing): ResponseRequest | undefined {
    const index = selectResponseRequest(this.requested, echoed);
    return index === undefined ? undefined : this.requested.splice(index, 1)[0];
  }

  /** How many requests wait for their `response.created`. */
  get size(): number {
    return this.requested.length;
  }
}

/**
 * Pure: whether a `response.done` ends a response whose `response.created` never came — none under way has
 * its id, or, naming none, none is under way at all. Such a response answers the request it echoes, as a
 * created one does (none for one server VAD made): the response object of `response.done` says the same.
 */
export function doneWithoutCreated(responseId: string | undefined, underWay: ReadonlyMap<string, unknown>): boolean {
  return responseId === undefined ? underWay.size === 0 : !underWay.has(responseId);
}
