import WebSocket from 'ws';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import type { UpstreamFailure } from '../../routing/classify-upstream-failure.js';
import { isRedirectStatus, redirectFailure } from '../../providers/redirect-failure.js';
import { maskUrlCredentials } from '../../security/mask-url-credentials.js';
import { redactSecret } from '../redact-secret.js';
import { readUpstreamErrorBody } from '../read-upstream-error.js';
import { upstreamProtocols, type RealtimeHandshake } from './realtime-handshake.js';

/** Largest frame either side may send (a second of 24 kHz PCM16 is 64 KB of base64: this leaves room). */
export const maxRealtimeFrameBytes = 16 * 1024 * 1024;
/**
 * The most either side's socket may hold unsent (`bufferedAmount`): four of the largest frames. A side that
 * reads nothing (or far slower than the other sends) would otherwise grow the gateway's memory without end.
 */
export const maxBufferedRealtimeBytes = 4 * maxRealtimeFrameBytes;
const handshakeTimeoutMs = 15_000;

export type RealtimeConnection = { ok: true; socket: WebSocket } | { ok: false; failure: UpstreamFailure };

/**
 * Opens the channel's Realtime WebSocket (protocols.md §9): `{base}` with `http` → `ws`, `/v1/realtime?model=`
 * the upstream model, the channel's key as `Authorization: Bearer` (or, for a client that authenticated
 * with subprotocols, as the `openai-insecure-api-key.` subprotocol), and the client's `OpenAI-Beta`. A
 * refused upgrade is a failure with the upstream's status, tried on another channel as any other.
 */
export function connectRealtimeUpstream(channel: ChannelRecord, key: string, upstreamModel: string, handshake: RealtimeHandshake): Promise<RealtimeConnection> {
  const url = `${channel.baseUrl.replace(/^http/i, 'ws')}/v1/realtime?model=${encodeURIComponent(upstreamModel)}`;
  const protocols = upstreamProtocols(handshake, key);
  const headers: Record<string, string> = protocols === undefined ? { authorization: `Bearer ${key}` } : {};
  if (handshake.beta !== undefined) headers['openai-beta'] = handshake.beta;
  return new Promise((resolve) => {
    let socket: WebSocket;
    try {
      socket = new WebSocket(url, protocols, { headers, handshakeTimeout: handshakeTimeoutMs, maxPayload: maxRealtimeFrameBytes, perMessageDeflate: false });
    } catch (error) {
      resolve({ ok: false, failure: { kind: 'connection', message: 'The channel has no valid Realtime URL.', detail: maskUrlCredentials(String(error)) } });
      return;
    }
    const fail = (failure: UpstreamFailure) => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      resolve({ ok: false, failure });
    };
    socket.once('open', () => {
      // Nothing is read until the client's side is accepted (the upstream's `session.created` waits for it).
      socket.pause();
      socket.removeAllListeners('error');
      socket.removeAllListeners('unexpected-response');
      resolve({ ok: true, socket });
    });
    socket.once('unexpected-response', (_request, response) => {
      // A 3xx (ws follows none) opened nothing: tried elsewhere like a 5xx, never held as the client's fault.
      if (response.statusCode !== undefined && isRedirectStatus(response.statusCode)) {
        response.destroy();
        fail(redirectFailure(response.statusCode, response.headers.location));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size < 16_384) chunks.push(chunk);
        size += chunk.length;
      });
      response.on('end', () => {
        const text = redactSecret(Buffer.concat(chunks).toString('utf8').slice(0, 16_384), key);
        const status = response.statusCode ?? 502;
        const { message, reason } = readUpstreamErrorBody(text, status);
        fail({ kind: 'status', status, message, ...(reason === undefined ? {} : { reason }) });
      });
      response.on('error', () => fail({ kind: 'status', status: response.statusCode ?? 502, message: `Upstream answered HTTP ${response.statusCode ?? 502}` }));
    });
    socket.once('error', (error) => {
      const timedOut = /timed out/i.test(error.message);
      fail(timedOut ? { kind: 'timeout', phase: 'connect', message: 'The upstream did not open the Realtime session in time.' } : { kind: 'connection', message: 'Could not reach the upstream.', detail: error.message });
    });
  });
}
