import { EventEmitter } from 'node:events';
import { Agent, errors as undiciErrors, util as undiciUtil, type Dispatcher } from 'undici';
import type { UpstreamFailure } from '../routing/classify-upstream-failure.js';
import type { ClientAbortSignal } from './client-abort-signal.js';
import { UpstreamBody } from './upstream-body.js';

export interface UpstreamTimeouts {
  connectMs: number;
  /** Time until the response headers arrive. */
  firstByteMs: number;
  /** Silence allowed between two body chunks (STREAMING_TIMEOUT). */
  idleMs: number;
}

/** What aborts an upstream call: the relay's cheap client-abort signal, or any AbortSignal (channel tests). */
export type UpstreamSignal = AbortSignal | ClientAbortSignal;

export interface UpstreamRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  signal: UpstreamSignal;
}

export interface UpstreamResponse {
  statusCode: number;
  /** Lower-case names; a repeated header is an array. */
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

type SendResult = { ok: true; response: UpstreamResponse } | { ok: false; failure: UpstreamFailure };

/**
 * Connections per upstream origin. Each streamed answer holds one connection for its whole length, so this
 * bounds concurrent streams to one origin: at 256, a thousand slow streams queued behind the first 256
 * (BENCHMARKS.md, harness finding 3). Still bounded, so a flood cannot open sockets without end.
 */
export const upstreamConnectionsPerOrigin = 4096;

/**
 * One keep-alive connection pool per upstream origin (undici Agent keeps a Pool per origin), with the
 * three timeouts of issue #3. Errors become typed UpstreamFailures for the retry policy.
 */
export class UpstreamClient {
  private readonly agent: Agent;

  constructor(private readonly timeouts: UpstreamTimeouts) {
    this.agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: timeouts.idleMs,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connections: upstreamConnectionsPerOrigin,
      pipelining: 1,
    });
  }

  /**
   * Dispatches the request with a handler of our own (upstream-body.ts): resolves at the response headers,
   * or with the failure that came first. The signal aborts the request before the headers, and destroys the
   * body (which aborts the request) after them.
   */
  send(request: UpstreamRequest): Promise<SendResult> {
    return new Promise((resolve) => {
      let target: { origin: string; path: string };
      try {
        target = splitUrl(request.url);
      } catch (error) {
        resolve({ ok: false, failure: describeFailure(error) });
        return;
      }
      const { signal } = request;
      let abortRequest: ((reason: Error) => void) | undefined;
      let body: UpstreamBody | undefined;
      const abortReason = () => (signal.reason instanceof Error ? signal.reason : new undiciErrors.RequestAbortedError());
      const onAbort = () => {
        if (body !== undefined) body.destroy(abortReason());
        else abortRequest?.(abortReason());
      };
      const stopListening = listenForAbort(signal, onAbort);
      const fail = (error: Error) => {
        stopListening();
        if (body !== undefined) body.fail(error);
        else resolve({ ok: false, failure: describeFailure(error) });
      };
      const handler: Dispatcher.DispatchHandler = {
        onConnect(abort) {
          if (signal.aborted) abort(abortReason());
          else abortRequest = abort;
        },
        onHeaders(statusCode, rawHeaders, resume) {
          if (statusCode < 200) return true;
          const headers = undiciUtil.parseHeaders(rawHeaders) as UpstreamResponse['headers'];
          body = new UpstreamBody(resume, (reason) => abortRequest?.(reason));
          resolve({ ok: true, response: { statusCode, headers, body } });
          return true;
        },
        onData(chunk) {
          return body === undefined ? true : body.push(chunk);
        },
        onComplete() {
          stopListening();
          body?.complete();
        },
        onError: fail,
      };
      try {
        this.agent.dispatch({ origin: target.origin, path: target.path, method: request.method, headers: request.headers, body: request.body }, handler);
      } catch (error) {
        fail(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

// Upstream URLs repeat (a channel's base URL + an endpoint path): parsing each once saves two URL parses
// per request. Bounded, since model names and query strings can make them many.
const splitUrls = new Map<string, { origin: string; path: string }>();
const maxSplitUrls = 1024;

function splitUrl(url: string): { origin: string; path: string } {
  let split = splitUrls.get(url);
  if (split === undefined) {
    const parsed = new URL(url);
    split = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (splitUrls.size >= maxSplitUrls) splitUrls.clear();
    splitUrls.set(url, split);
  }
  return split;
}

/**
 * Calls `onAbort` when the signal fires (the relay's EventEmitter signal, which fires once, or an
 * AbortSignal); returns the remover.
 */
function listenForAbort(signal: UpstreamSignal, onAbort: () => void): () => void {
  if (signal instanceof EventEmitter) {
    signal.on('abort', onAbort);
    return () => signal.off('abort', onAbort);
  }
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

export function describeFailure(error: unknown): UpstreamFailure {
  if (error instanceof undiciErrors.ConnectTimeoutError) return { kind: 'timeout', phase: 'connect', message: 'Timed out connecting to the upstream.' };
  if (error instanceof undiciErrors.HeadersTimeoutError) return { kind: 'timeout', phase: 'first_byte', message: 'The upstream did not answer in time.' };
  if (error instanceof undiciErrors.BodyTimeoutError) return { kind: 'timeout', phase: 'idle', message: 'The upstream stopped sending data.' };
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'connection', message: `Upstream connection failed: ${message}` };
}
