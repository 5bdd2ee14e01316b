import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { quoteClientText } from '../../errors/quote-client-text.js';
import { findRepeatedKey } from './find-repeated-key.js';

/**
 * JSON bodies are read as bytes (Fastify enforces bodyLimit while reading, so a giant body is refused
 * without being buffered), kept raw for passthrough, and parsed once. Clients that send JSON without a
 * JSON content type (curl -d) are served too, as new-api does. A leading UTF-8 byte order mark is dropped
 * from both the parsed text and the raw bytes kept (`withoutByteOrderMark`).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (request: { rawBody: Buffer | undefined }, received: Buffer, done: (error: Error | null, value?: unknown) => void) => {
    const body = withoutByteOrderMark(received);
    request.rawBody = body;
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    // JSON text is UTF-8 (RFC 8259 §8.1). Decoding other bytes would put U+FFFD in the text the gateway
    // checks, counts and converts, while a passthrough sent the client's bytes as they came: what was billed
    // and what the upstream read (or refused after the call) would differ. One SIMD scan (simdutf).
    if (!isUtf8(body)) {
      done(new GatewayError('invalid_json', 'Request body is not valid JSON: it is not UTF-8 text (RFC 8259 §8.1); send it encoded as UTF-8.'));
      return;
    }
    let value: unknown;
    try {
      const text = body.toString('utf8');
      value = JSON.parse(text);
      // JSON.parse keeps the last value of a repeated key, while the raw bytes passed through carry both:
      // an upstream that keeps the first would run another model or output limit than the one checked,
      // reserved and priced. Such a body has no one meaning, so it is refused.
      const repeated = findRepeatedKey(text);
      if (repeated !== undefined) {
        const key = quoteClientText(repeated);
        done(new GatewayError('invalid_json', `Request body names the key "${key}" more than once in one object; each key may appear once.`, { param: key }));
        return;
      }
      const poisoned = poisonedKeyOf(text, value);
      if (poisoned !== undefined) {
        done(new GatewayError('invalid_json', `Request body contains the forbidden key "${poisoned}".`));
        return;
      }
    } catch (error) {
      done(new GatewayError('invalid_json', `Request body is not valid JSON: ${(error as Error).message}`));
      return;
    }
    done(null, value);
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => parse(request, body as Buffer, done));
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => parse(request, body as Buffer, done));
}

/**
 * The body without a leading UTF-8 byte order mark (EF BB BF), which Windows tools write before JSON
 * (PowerShell 5's `Set-Content -Encoding UTF8`, .NET's `Encoding.UTF8`). RFC 8259 §8.1 lets a parser ignore
 * it; JSON.parse does not, and the vendors refuse it too, so it is dropped before the bytes are both parsed
 * and kept for passthrough. A view (`subarray`), not a copy; a body without one is returned as it came.
 */
function withoutByteOrderMark(body: Buffer): Buffer {
  return body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;
}

// Fastify's own JSON parser (secure-json-parse) refuses prototype-poisoning keys; this parser replaces it, so
// it must too. The text is searched first (keys may be written with \u escapes), and only a hit is scanned.
const protoKey = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const constructorKey = /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

function poisonedKeyOf(text: string, value: unknown): string | undefined {
  // Without a \u escape either key can only be written literally: two plain searches settle most bodies.
  if (!text.includes('\\u') && !text.includes('__proto__') && !text.includes('constructor')) return undefined;
  if (!protoKey.test(text) && !constructorKey.test(text)) return undefined;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) return '__proto__';
    const constructorValue = (node as Record<string, unknown>).constructor;
    if (Object.hasOwn(node, 'constructor') && constructorValue !== null && typeof constructorValue === 'object' && Object.hasOwn(constructorValue, 'prototype')) {
      return 'constructor.prototype';
    }
    for (const child of Object.values(node)) pending.push(child);
  }
  return undefined;
}
