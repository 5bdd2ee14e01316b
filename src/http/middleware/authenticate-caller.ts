import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { authenticateToken } from '../../auth/authenticate-token.js';
import { bearerValue } from '../../auth/parse-api-key.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { AppServices } from '../app-services.js';

/** Where a style's clients put the key (spec §5). Bearer is accepted everywhere. */
/** `midjourney`: MJ clients may send the key as `mj-api-secret`, the header a Midjourney-proxy reads. */
export type KeySource = 'openai' | 'anthropic' | 'gemini' | 'midjourney' | 'any';

export function presentedKeyOf(request: FastifyRequest, source: KeySource): string | undefined {
  const headers = request.headers;
  // A style's own key header wins over Authorization, as in new-api (which copies `x-api-key` and
  // `x-goog-api-key` onto Authorization): a client that sends both is charged to the key its SDK sent.
  if (source === 'anthropic' || source === 'any') {
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string' && apiKey !== '') return repeatedHeader(apiKey, 'x-api-key') ?? apiKey;
  }
  if (source === 'gemini' || source === 'any') {
    const googleKey = headers['x-goog-api-key'];
    if (typeof googleKey === 'string' && googleKey !== '') return repeatedHeader(googleKey, 'x-goog-api-key') ?? googleKey;
    const queryKey = (request.query as Record<string, unknown> | undefined)?.key;
    if (typeof queryKey === 'string' && queryKey !== '') return queryKey;
    // `?key=a&key=b` is read as an array: no one key to charge, and it outranks Authorization as one would.
    if (Array.isArray(queryKey)) return repeatedQueryKey;
  }
  if (source === 'midjourney') {
    const secret = headers['mj-api-secret'];
    if (typeof secret === 'string' && secret !== '') return repeatedHeader(secret, 'mj-api-secret') ?? bearerValue(secret) ?? secret;
  }
  const authorization = headers.authorization;
  if (authorization !== undefined && authorization.trim() !== '') {
    // Node keeps the first Authorization of several and drops the others unseen: counted in the raw headers.
    if (countRawHeader(request.raw.rawHeaders, 'authorization') > 1) return repeatedKeyMarker + 'Authorization';
    // A present but non-Bearer Authorization header is a wrong key, not a missing one.
    return bearerValue(authorization) ?? '\u0000invalid';
  }
  return undefined;
}

/**
 * What {@link presentedKeyOf} answers for a key given more than once — two `key` query parameters, or a key
 * header sent twice —: a value no key can have (a NUL, as for a non-Bearer Authorization), followed by where
 * it was given, told apart by the hook so the 401 says what is wrong. No one key is named: charging either
 * would be a guess, and a proxy on the way may have read the other.
 */
const repeatedKeyMarker = '\u0000repeated:';
const repeatedQueryKey = `${repeatedKeyMarker}?key=`;

/**
 * A key header holding a list: Node joins a header sent more than once into one value (`a, b`), and HTTP
 * reads one line `a, b` as the same two values (RFC 9110 §5.3). A key has no comma, so the list would have
 * reached authentication as one unknown key: the marker of a repeated header instead. One `includes`.
 */
function repeatedHeader(value: string, name: string): string | undefined {
  return value.includes(',') ? repeatedKeyMarker + name : undefined;
}

/**
 * The 401 for an Authorization header given more than once (Node keeps the first and drops the others
 * unseen), in the words {@link authenticateCaller} uses, for the routes that read Authorization themselves
 * (`/api/usage/token`, the Realtime upgrade, the admin API); undefined when it is there once or not at all.
 */
export function repeatedAuthorizationError(rawHeaders: readonly string[], source: KeySource): GatewayError | undefined {
  return countRawHeader(rawHeaders, 'authorization') > 1 ? new GatewayError('invalid_api_key', repeatedKeyMessage('Authorization', source)) : undefined;
}

/** How many times a header (its lowercase name) is in Node's raw headers (name, value, name, value …). */
function countRawHeader(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const raw = rawHeaders[index] as string;
    if (raw.length === name.length && raw.toLowerCase() === name) count += 1;
  }
  return count;
}

/** What a client that sent no key is told, in the header its own SDK uses. */
const missingKeyMessages: Record<KeySource, string | undefined> = {
  openai: undefined,
  midjourney: undefined,
  any: undefined,
  anthropic: 'No API key provided. Send it as `x-api-key: <key>` (or `Authorization: Bearer <key>`).',
  gemini: 'No API key provided. Send it as `x-goog-api-key: <key>`, the `key` query parameter, or `Authorization: Bearer <key>`.',
};

/** The 401's message for a key given more than once: where, and the ways the style's clients may send one. */
function repeatedKeyMessage(where: string, source: KeySource): string {
  const given = where === '?key=' ? 'The `key` query parameter is' : `The \`${where}\` header is`;
  return `${given} given more than once; send one API key (${oneKeyWays[source]}).`;
}

const oneKeyWays: Record<KeySource, string> = {
  openai: 'as `Authorization: Bearer`',
  midjourney: 'as `mj-api-secret` or `Authorization: Bearer`',
  any: 'as `Authorization: Bearer`, `x-api-key` or `x-goog-api-key`',
  anthropic: 'as `x-api-key` or `Authorization: Bearer`',
  gemini: 'as `?key=`, `x-goog-api-key` or `Authorization: Bearer`',
};

/**
 * An `onRequest` hook that authenticates the API key from memory (no database read) and sets request.caller.
 * It reads only the headers and the query, so it runs before the body is read: a caller without a usable
 * key is answered 401 at once, not after the gateway has received, buffered and parsed up to max_body_mb.
 * Synchronous (a `done` callback, no promise): it runs on every relay request.
 */
export function authenticateCaller(services: AppServices, source: KeySource, options: { readOnly?: boolean } = {}): onRequestHookHandler {
  return function authenticateCallerHook(request, _reply, done) {
    const presented = presentedKeyOf(request, source);
    if (presented?.startsWith(repeatedKeyMarker) === true) {
      done(new GatewayError('invalid_api_key', repeatedKeyMessage(presented.slice(repeatedKeyMarker.length), source)));
      return;
    }
    const result = authenticateToken(services.catalog.snapshot, presented, Math.floor(services.now() / 1000), options);
    if (!result.ok) {
      const message = result.code === 'missing_api_key' ? (missingKeyMessages[source] ?? result.message) : result.message;
      done(new GatewayError(result.code, message));
      return;
    }
    request.caller = result.caller;
    done();
  };
}
