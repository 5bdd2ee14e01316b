import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The one security suite every relay route joins (CONVENTIONS.md §14): whatever the route, a caller
 * without a valid, enabled, unexpired key of an enabled user is refused in the route's own envelope,
 * and no refused request reaches an upstream.
 */
export type RelayStyle = 'openai' | 'anthropic' | 'gemini';

export interface SecuritySuiteRoute {
  name: string;
  method: 'GET' | 'POST';
  /** `{model}` is replaced by the model of the case (Gemini routes carry the model in the path). */
  path: string;
  style: RelayStyle;
  /** The JSON body for a model; routes with a body (or `{model}` in the path) also get the model_limits case. */
  body?: (model: string) => unknown;
  /** Where the key is sent; by default where the style's clients send it (Bearer, x-api-key, x-goog-api-key). */
  keyIn?: KeyPlacement;
  /**
   * The envelope when no key is sent at all. Defaults to `style`; a route that tells its style from the
   * key header itself (GET /v1/models) answers a keyless request in its default style.
   */
  styleWithoutKey?: RelayStyle;
  /** The route calls an upstream: the valid key's and the admin pin's requests must reach it (so the counter is live). */
  reachesUpstream?: boolean;
}

export type KeyPlacement = 'bearer' | 'x-api-key' | 'x-goog-api-key' | 'query';

export interface SecuritySuiteKeys {
  /** An enabled token of an enabled `user`, limited to `allowedModel`. */
  valid: string;
  disabledToken: string;
  /** Its expires_at is in the past. */
  expiredToken: string;
  /** An enabled token whose user is disabled. */
  disabledUser: string;
  /** A token of the root user, allowed to pin a channel. */
  admin: string;
}

export interface SecuritySuiteContext {
  /** http://host:port of the running gateway. */
  baseUrl: string;
  keys: SecuritySuiteKeys;
  /** Served by `channelId` and within the valid key's model_limits. */
  allowedModel: string;
  /** Served by `channelId` but outside the valid key's model_limits. */
  forbiddenModel: string;
  /** A channel that serves both models, for `sk-<key>-<channelId>`. */
  channelId: number;
  /** Requests that reached the route's fake upstream so far. */
  upstreamRequests(): number;
  close(): Promise<void>;
}

interface Refusal {
  status: 401 | 403;
  /** The gateway's error code; checked where the envelope carries it (OpenAI `error.code`). */
  code: string;
}

const defaultKeyPlacement: Record<RelayStyle, KeyPlacement> = { openai: 'bearer', anthropic: 'x-api-key', gemini: 'x-goog-api-key' };

/** OpenAI clients know `invalid_api_key` for both a missing and a wrong key (protocols.md §11). */
const openaiCodeOf = (code: string) => (code === 'missing_api_key' ? 'invalid_api_key' : code);

export function runRelaySecuritySuite(route: SecuritySuiteRoute, setup: () => Promise<SecuritySuiteContext>): void {
  const keyIn = route.keyIn ?? defaultKeyPlacement[route.style];
  const takesModel = route.body !== undefined || route.path.includes('{model}');

  describe(`${route.method} ${route.path} (${route.name}, ${route.style} style, key in ${keyIn}): security`, () => {
    let context: SecuritySuiteContext;

    beforeAll(async () => {
      context = await setup();
    });
    afterAll(async () => context?.close());

    async function send(key: string | undefined, options: { model?: string; authorization?: string } = {}) {
      const model = options.model ?? context.allowedModel;
      const url = new URL(route.path.replaceAll('{model}', encodeURIComponent(model)), context.baseUrl);
      const headers: Record<string, string> = {};
      if (route.style === 'anthropic') headers['anthropic-version'] = '2023-06-01';
      if (options.authorization !== undefined) headers.authorization = options.authorization;
      else if (key !== undefined) {
        switch (keyIn) {
          case 'bearer':
            headers.authorization = `Bearer ${key}`;
            break;
          case 'x-api-key':
            headers['x-api-key'] = key;
            break;
          case 'x-goog-api-key':
            headers['x-goog-api-key'] = key;
            break;
          case 'query':
            url.searchParams.set('key', key);
            break;
        }
      }
      const body = route.method === 'POST' ? JSON.stringify(route.body?.(model) ?? {}) : undefined;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(url, { method: route.method, headers, ...(body === undefined ? {} : { body }) });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text };
    }

    /** Sends, then checks status, envelope, request id, and that the upstream saw nothing. */
    async function expectRefused(refusal: Refusal, key: string | undefined, options: { model?: string; authorization?: string; style?: RelayStyle } = {}) {
      const upstreamBefore = context.upstreamRequests();
      const response = await send(key, options);
      expect(response.status, response.text).toBe(refusal.status);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expectEnvelope(options.style ?? route.style, refusal, JSON.parse(response.text) as unknown);
      // A key never travels back in an error.
      if (key !== undefined) expect(response.text).not.toContain(key);
      expect(context.upstreamRequests() - upstreamBefore, 'a refused request reached the upstream').toBe(0);
    }

    /** For the requests that must pass: not refused, and on to the upstream when the route has one. */
    async function expectAdmitted(key: string) {
      const upstreamBefore = context.upstreamRequests();
      const response = await send(key);
      expect([401, 403], response.text).not.toContain(response.status);
      if (route.reachesUpstream === true) expect(context.upstreamRequests() - upstreamBefore, 'the upstream counter did not move').toBeGreaterThan(0);
    }

    it('lets the valid key through (so the refusals below are about the key, not the fixture)', async () => {
      await expectAdmitted(context.keys.valid);
    });

    it('refuses a request without a key with 401', async () => {
      await expectRefused({ status: 401, code: 'missing_api_key' }, undefined, { style: route.styleWithoutKey ?? route.style });
    });

    it('refuses an unknown key with 401', async () => {
      await expectRefused({ status: 401, code: 'invalid_api_key' }, `sk-${'Unkno'.repeat(9)}abc`);
    });

    it('refuses a key that is not a key at all with 401', async () => {
      await expectRefused({ status: 401, code: 'invalid_api_key' }, 'sk-not--a-key');
    });

    // Cases that do not apply to a route are not registered at all, so "skipped" keeps meaning "no server here".
    if (keyIn === 'bearer') {
      it('refuses a non-Bearer Authorization header with 401', async () => {
        await expectRefused({ status: 401, code: 'invalid_api_key' }, undefined, { authorization: `Basic ${Buffer.from('user:password').toString('base64')}` });
      });
    }

    it('refuses a disabled token with 401', async () => {
      await expectRefused({ status: 401, code: 'token_disabled' }, context.keys.disabledToken);
    });

    it('refuses an expired token with 401', async () => {
      await expectRefused({ status: 401, code: 'token_expired' }, context.keys.expiredToken);
    });

    it('refuses the token of a disabled user with 403', async () => {
      await expectRefused({ status: 403, code: 'user_disabled' }, context.keys.disabledUser);
    });

    if (takesModel) {
      it('refuses a model outside the token’s model_limits with 403', async () => {
        await expectRefused({ status: 403, code: 'model_not_allowed' }, context.keys.valid, { model: context.forbiddenModel });
      });
    }

    it('refuses a channel pin (sk-<key>-<channelId>) from a non-admin with 403', async () => {
      await expectRefused({ status: 403, code: 'channel_pin_forbidden' }, `${context.keys.valid}-${context.channelId}`);
    });

    it('lets an admin pin a request to a channel', async () => {
      await expectAdmitted(`${context.keys.admin}-${context.channelId}`);
    });
  });
}

function expectEnvelope(style: RelayStyle, refusal: Refusal, body: unknown): void {
  switch (style) {
    case 'openai':
      expect(body).toEqual({
        error: {
          message: expect.any(String),
          type: refusal.status === 401 ? 'authentication_error' : 'permission_error',
          param: expect.toSatisfy((value: unknown) => value === null || typeof value === 'string'),
          code: openaiCodeOf(refusal.code),
        },
      });
      return;
    case 'anthropic':
      expect(body).toMatchObject({
        type: 'error',
        error: { type: refusal.status === 401 ? 'authentication_error' : 'permission_error', message: expect.any(String) },
      });
      return;
    case 'gemini':
      expect(body).toEqual({
        error: { code: refusal.status, message: expect.any(String), status: refusal.status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED' },
      });
      return;
  }
}
