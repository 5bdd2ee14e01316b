import { EventEmitter } from 'node:events';

/**
 * Aborts one relay request's upstream call when its client goes away. undici takes an EventEmitter with
 * `aborted` (and `reason`) as a request's signal; this costs well under a microsecond per request, where an
 * AbortController (an EventTarget, plus undici's `{ once: true }` listener on it) cost several.
 */
export class ClientAbortSignal extends EventEmitter {
  aborted = false;
  reason: Error | undefined;

  abort(reason?: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}
