import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { UpstreamFailure } from '../routing/classify-upstream-failure.js';

export interface UpstreamTimeouts {
  connectMs: number;
  /** Time until the response headers arrive. */
  firstByteMs: number;
  /** Silence allowed between two body chunks (STREAMING_TIMEOUT). */
  idleMs: number;
}

export interface UpstreamRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  signal: AbortSignal;
}

export type UpstreamResponse = Dispatcher.ResponseData;

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
      connections: 256,
      pipelining: 1,
    });
  }

  async send(request: UpstreamRequest): Promise<{ ok: true; response: UpstreamResponse } | { ok: false; failure: UpstreamFailure }> {
    try {
      const response = await this.agent.request({
        origin: new URL(request.url).origin,
        path: pathOf(request.url),
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: request.signal,
      });
      return { ok: true, response };
    } catch (error) {
      return { ok: false, failure: describeFailure(error) };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

export function describeFailure(error: unknown): UpstreamFailure {
  if (error instanceof undiciErrors.ConnectTimeoutError) return { kind: 'timeout', phase: 'connect', message: 'Timed out connecting to the upstream.' };
  if (error instanceof undiciErrors.HeadersTimeoutError) return { kind: 'timeout', phase: 'first_byte', message: 'The upstream did not answer in time.' };
  if (error instanceof undiciErrors.BodyTimeoutError) return { kind: 'timeout', phase: 'idle', message: 'The upstream stopped sending data.' };
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'connection', message: `Upstream connection failed: ${message}` };
}
