import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { renderError } from '../../errors/render-error.js';
import { toGatewayError } from '../../http/middleware/handle-errors.js';

/**
 * Answers a WebSocket upgrade that is refused with a plain HTTP error in OpenAI's envelope (an SDK reports
 * the status; the body says why), with the request id and any rate-limit headers, then closes the socket.
 */
export function rejectUpgrade(socket: Duplex, error: unknown, requestId: string): void {
  if (socket.destroyed) return;
  const gatewayError = toGatewayError(error);
  const rendered = renderError(gatewayError, 'openai', requestId);
  const body = JSON.stringify(rendered.body);
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-request-id': requestId, connection: 'close', ...gatewayError.headers };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? 'Error'}\r\n${head}\r\n${body}`);
}
