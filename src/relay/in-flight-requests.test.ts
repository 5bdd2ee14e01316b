import { describe, expect, it } from 'vitest';
import { InFlightRequests } from './in-flight-requests.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

describe('InFlightRequests', () => {
  it('is drained at once when nothing runs', async () => {
    await new InFlightRequests().drained();
  });

  it('drains only after every tracked request has finished, failed ones included', async () => {
    const inFlight = new InFlightRequests();
    const first = deferred();
    const second = deferred();
    const tracked = [inFlight.track(() => first.promise), inFlight.track(() => second.promise)];
    expect(inFlight.size).toBe(2);
    let drained = false;
    const draining = inFlight.drained().then(() => (drained = true));
    first.resolve();
    await tracked[0];
    expect(drained).toBe(false);
    second.reject(new Error('upstream gone'));
    // The caller still sees its own failure; draining does not.
    await expect(tracked[1]).rejects.toThrow('upstream gone');
    await draining;
    expect(inFlight.size).toBe(0);
  });

  it('also waits for requests that start while it drains', async () => {
    const inFlight = new InFlightRequests();
    const first = deferred();
    const late = deferred();
    void inFlight.track(() => first.promise);
    let drained = false;
    const draining = inFlight.drained().then(() => (drained = true));
    void inFlight.track(() => late.promise);
    first.resolve();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(drained).toBe(false);
    late.resolve();
    await draining;
  });
});
