import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import type { RelayServices } from '../relay/relay-services.js';
import { readBodyChunks } from '../relay/read-body-chunks.js';
import { waitForDrain } from '../relay/write-to-client.js';
import { corsResponseHeaders } from './cors.js';

/** A file an upstream keeps for a task (a video, an image), and how to fetch it. */
export interface DownloadSource {
  url: string;
  headers: Record<string, string>;
  /** The content type sent when the upstream names none, or one not of `allowedType`. */
  defaultType: string;
  /** The type the file must be (`image/`, `video/`): another is sent as `defaultType`, never as the upstream named it. */
  allowedType: string;
  /** What it is, for error messages ("video content"). */
  what: string;
}

/**
 * Relays a file from its upstream to the client as it arrives (a video can be hundreds of MB: it is never
 * held whole). An upstream that cannot give it is a 502; a cut mid-file truncates the client's body, as
 * any proxy would. `answerHeaders` go with the file (a keyed route's x-ratelimit-* headers).
 */
export async function relayDownload(relay: RelayServices, source: DownloadSource, request: FastifyRequest, reply: FastifyReply, answerHeaders: Record<string, string> = {}): Promise<void> {
  const abort = new AbortController();
  const onClose = () => abort.abort();
  reply.raw.on('close', onClose);
  try {
    const sent = await relay.upstream.send({ url: source.url, method: 'GET', headers: source.headers, body: undefined, signal: abort.signal });
    if (!sent.ok) throw new GatewayError('upstream_error', `Failed to fetch ${source.what}: ${sent.failure.message}`);
    const { response } = sent;
    if (response.statusCode >= 300) {
      response.body.destroy();
      throw new GatewayError('upstream_error', `Failed to fetch ${source.what}: the upstream answered ${response.statusCode}.`);
    }
    void reply.hijack();
    const raw = reply.raw;
    // Served from the gateway's own origin: never as a page (an upstream's HTML or script is not rendered here).
    raw.writeHead(200, {
      'content-type': response.contentType.toLowerCase().startsWith(source.allowedType) ? response.contentType : source.defaultType,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'x-request-id': request.id,
      ...corsResponseHeaders,
      ...answerHeaders,
    });
    try {
      await readBodyChunks(response.body, (chunk) => (raw.write(chunk) ? undefined : waitForDrain(raw)));
      raw.end();
    } catch {
      raw.destroy();
    }
  } finally {
    reply.raw.off('close', onClose);
  }
}
