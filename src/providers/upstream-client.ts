import { EventEmitter } from 'node:events';
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { UpstreamFailure } from '../routing/classify-upstream-failure.js';
import type { ClientAbortSignal } from './client-abort-signal.js';
import { isRedirectStatus, redirectFailure } from './redirect-failure.js';
import { defaultMaxWholeBodyBytes, UpstreamBody } from './upstream-body.js';

/** The three timeouts of issue #3, and the bound of a whole-body read. */
export interface UpstreamClientOptions {
  connectMs: number;
  /** Time until the response headers arrive. */
  firstByteMs: number;
  /** Silence allowed between two body chunks (STREAMING_TIMEOUT). */
  idleMs: number;
  /** The most a whole-body read of an answer holds (MAX_UPSTREAM_RESPONSE_MB); default 64 MiB. */
  maxWholeBodyBytes?: number;
}

/** What aborts an upstream call: the relay's cheap client-abort signal, or any AbortSignal (channel tests). */
export type UpstreamSignal = AbortSignal | ClientAbortSignal;

export interface UpstreamRequest {
  url: string;
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  signal: UpstreamSignal;
}

export interface UpstreamResponse {
  statusCode: number;
  /** The `content-type` header ('' when there is none): the only response header the relay reads. */
  contentType: string;
  /** `retry-after` of a 429 or 503 (the only other header read, and only on those): passed on to the client. */
  retryAfter?: string;
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
  private readonly maxWholeBodyBytes: number;

  constructor(options: UpstreamClientOptions) {
    this.maxWholeBodyBytes = options.maxWholeBodyBytes ?? defaultMaxWholeBodyBytes;
    this.agent = new Agent({
      connect: { timeout: options.connectMs },
      headersTimeout: options.firstByteMs,
      bodyTimeout: options.idleMs,
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
      const dispatch = new UpstreamDispatch(request.signal, resolve, this.maxWholeBodyBytes);
      try {
        this.agent.dispatch({ origin: target.origin, path: target.path, method: request.method, headers: request.headers, body: request.body }, dispatch);
      } catch (error) {
        dispatch.onError(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  async close(): Promise<void> {
    if (!this.agent.destroyed) await this.agent.close();
  }

  /** Aborts every upstream call still running (a shutdown past its deadline): each ends as a failure. */
  async destroy(): Promise<void> {
    await this.agent.destroy();
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
 * One upstream call: undici's handler, the abort listener and the resolver of `send`'s promise in one object
 * (its methods are shared, not closures made per request). Until the response headers arrive, a failure
 * resolves the promise and the abort signal aborts the request; after them, both go to the body.
 */
class UpstreamDispatch implements Dispatcher.DispatchHandler {
  private abortRequest: ((reason: Error) => void) | undefined;
  private body: UpstreamBody | undefined;
  private listening = true;

  constructor(
    private readonly signal: UpstreamSignal,
    private readonly resolve: (result: SendResult) => void,
    private readonly maxWholeBodyBytes: number,
  ) {
    // The relay's EventEmitter signal fires once; an AbortSignal is listened to once.
    if (signal instanceof EventEmitter) signal.on('abort', this.onAbort);
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.signal.aborted) abort(this.abortReason());
    else this.abortRequest = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    if (isRedirectStatus(statusCode)) return this.refuseRedirect(statusCode, rawHeaders);
    const body = new UpstreamBody(resume, (reason) => this.abortRequest?.(reason), undefined, this.maxWholeBodyBytes);
    this.body = body;
    const response: UpstreamResponse = { statusCode, contentType: contentTypeOf(rawHeaders), body };
    if (statusCode === 429 || statusCode === 503) {
      const retryAfter = headerOf(rawHeaders, 'retry-after');
      if (retryAfter !== undefined) response.retryAfter = retryAfter;
    }
    this.resolve({ ok: true, response });
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.body === undefined ? true : this.body.push(chunk);
  }

  onComplete(): void {
    this.stopListening();
    this.body?.complete();
  }

  onError(error: Error): void {
    this.stopListening();
    if (this.body !== undefined) this.body.fail(error);
    else this.resolve({ ok: false, failure: describeFailure(error) });
  }

  /**
   * A 3xx is no answer (redirect-failure.ts): the call fails as if the upstream could not be reached, for
   * every caller alike (relay attempts, task polls, downloads, channel tests). The request is aborted rather
   * than its body drained, so a redirect's body, however long, is never read.
   */
  private refuseRedirect(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.stopListening();
    this.resolve({ ok: false, failure: redirectFailure(statusCode, headerOf(rawHeaders, 'location')) });
    this.abortRequest?.(new undiciErrors.RequestAbortedError('redirect refused'));
    return false;
  }

  private readonly onAbort = (): void => {
    if (this.body !== undefined) this.body.destroy(this.abortReason());
    else this.abortRequest?.(this.abortReason());
  };

  private abortReason(): Error {
    const { reason } = this.signal;
    return reason instanceof Error ? reason : new undiciErrors.RequestAbortedError();
  }

  private stopListening(): void {
    if (!this.listening) return;
    this.listening = false;
    if (this.signal instanceof EventEmitter) this.signal.off('abort', this.onAbort);
    else this.signal.removeEventListener('abort', this.onAbort);
  }
}

export function describeFailure(error: unknown): UpstreamFailure {
  if (error instanceof undiciErrors.ConnectTimeoutError) return { kind: 'timeout', phase: 'connect', message: 'Timed out connecting to the upstream.' };
  if (error instanceof undiciErrors.HeadersTimeoutError) return { kind: 'timeout', phase: 'first_byte', message: 'The upstream did not answer in time.' };
  if (error instanceof undiciErrors.BodyTimeoutError) return { kind: 'timeout', phase: 'idle', message: 'The upstream stopped sending data.' };
  // The socket's message names the upstream's host and port (ECONNREFUSED 10.0.0.5:443, ENOTFOUND
  // internal-host): the operator's infrastructure, for the log, not for clients.
  const detail = error instanceof Error ? error.message : String(error);
  return { kind: 'connection', message: 'Upstream connection failed.', detail };
}

const contentTypeName = Buffer.from('content-type');

/**
 * The first `content-type` value among undici's raw `[name, value, …]` buffers, '' when there is none.
 * Only this header is read, so the others are never turned into strings (undici's parseHeaders made an
 * object of every header, ~14k instructions per response with the fake's few headers; real upstreams
 * send twenty and more).
 */
export function contentTypeOf(rawHeaders: Buffer[]): string {
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as Buffer;
    if (name.length === contentTypeName.length && isContentTypeName(name)) return (rawHeaders[index + 1] as Buffer).toString('latin1');
  }
  return '';
}

/** A header's value by its lower-case name (off the hot path: error answers only). */
function headerOf(rawHeaders: Buffer[], name: string): string | undefined {
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as Buffer).toString('latin1').toLowerCase() === name) return (rawHeaders[index + 1] as Buffer).toString('latin1');
  }
  return undefined;
}

/** ASCII case-insensitive: `| 0x20` lower-cases letters and leaves `-` as it is. */
function isContentTypeName(name: Buffer): boolean {
  for (let index = 0; index < contentTypeName.length; index += 1) if (((name[index] as number) | 0x20) !== contentTypeName[index]) return false;
  return true;
}
