import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { authenticateToken } from '../../auth/authenticate-token.js';
import { bearerValue, parseApiKey } from '../../auth/parse-api-key.js';
import type { TokenRecord } from '../../catalog/catalog-records.js';
import type { SiteSettings } from '../../catalog/site-settings.js';
import { assertNever, GatewayError } from '../../errors/gateway-error.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller, repeatedAuthorizationError } from '../middleware/authenticate-caller.js';
import { computeKeyBalance, type KeyBalance } from './compute-key-balance.js';

export type DisplaySettings = Pick<SiteSettings, 'quotaDisplayType' | 'quotaPerUnit' | 'usdExchangeRate'>;

/** What new-api reports as the limit of an unlimited token (controller/billing.go). */
export const unlimitedDisplayLimit = 100_000_000;

/** Spec §7.3: the compat billing routes' failure body. Status 200, as new-api: its clients read the body. */
const queryQuotaFailed = { error: { message: 'query quota failed', type: 'upstream_error', param: '', code: null } };

/** Pure: quota units in the site's display unit (USD: ÷ quotaPerUnit; CNY: then × usdExchangeRate; TOKENS: raw). */
export function quotaInDisplayUnit(quota: number, settings: DisplaySettings): number {
  switch (settings.quotaDisplayType) {
    case 'USD':
      return quota / settings.quotaPerUnit;
    case 'CNY':
      return (quota / settings.quotaPerUnit) * settings.usdExchangeRate;
    case 'TOKENS':
      return quota;
    default:
      return assertNever(settings.quotaDisplayType);
  }
}

/**
 * Pure: spec §2.9, in quota units, of what the key can spend (compute-key-balance.ts): `unlimited_quota` is
 * true only when neither the token nor its user is limited. `model_limits` is `{model: true}` as new-api
 * sends it. `total_granted` is used + available, so it stays the same while the key's requests run.
 */
export function formatTokenUsage(token: TokenRecord, balance: KeyBalance) {
  return {
    object: 'token_usage',
    name: token.name,
    total_granted: balance.used + balance.available,
    total_used: balance.used,
    total_available: balance.available,
    unlimited_quota: balance.unlimited,
    model_limits: Object.fromEntries((token.modelLimits ?? []).map((model) => [model, true])),
    model_limits_enabled: token.modelLimits !== null,
    expires_at: token.expiresAt,
  };
}

/** Pure: spec §2.10. The limit is what the key was granted (used + available) in the display unit. */
export function formatBillingSubscription(token: TokenRecord, balance: KeyBalance, settings: DisplaySettings) {
  const limit = balance.unlimited ? unlimitedDisplayLimit : quotaInDisplayUnit(balance.used + balance.available, settings);
  return {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: limit,
    hard_limit_usd: limit,
    system_hard_limit_usd: limit,
    access_until: token.expiresAt,
  };
}

/** Pure: spec §2.11. `total_usage` is in hundredths (cents) of the display unit, as OpenAI's old endpoint and new-api. */
export function formatBillingUsage(_token: TokenRecord, balance: KeyBalance, settings: DisplaySettings) {
  return { object: 'list', total_usage: quotaInDisplayUnit(balance.used, settings) * 100 };
}

/**
 * new-api's TokenAuthReadOnly for /api/usage/token/: only the Authorization header counts, with two fixed
 * messages for a missing or malformed one; expired and exhausted tokens are answered (spec §7.1–2).
 */
function authenticateUsageCaller(services: AppServices): onRequestAsyncHookHandler {
  return async function authenticateUsageCallerHook(request) {
    const repeated = repeatedAuthorizationError(request.raw.rawHeaders, 'openai');
    if (repeated !== undefined) throw repeated;
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw new GatewayError('missing_api_key', 'No Authorization header');
    const presented = bearerValue(header);
    if (presented === undefined || parseApiKey(presented) === undefined) throw new GatewayError('invalid_api_key', 'Invalid Bearer token');
    const result = authenticateToken(services.catalog.snapshot, presented, Math.floor(services.now() / 1000), { readOnly: true });
    if (!result.ok) throw new GatewayError(result.code, result.message);
    request.caller = result.caller;
  };
}

type FreshToken = { ok: true; token: TokenRecord; balance: KeyBalance } | { ok: false };

/**
 * Balances move on every request (and on other replicas), so these routes read the rows instead of the
 * in-memory catalog: the token's, its user's and its open reservations, in one statement. A token deleted or
 * disabled since the catalog loaded is refused like at the door.
 */
async function readFreshToken(services: AppServices, request: FastifyRequest): Promise<FreshToken> {
  const caller = request.caller;
  if (caller === undefined) throw new Error('account routes run after authentication');
  let read: Awaited<ReturnType<AppServices['repositories']['tokens']['getWithWallet']>>;
  try {
    read = await services.repositories.tokens.getWithWallet(caller.token.id);
  } catch (error) {
    request.log.error({ err: error, tokenId: caller.token.id }, 'reading the token for an account route failed');
    return { ok: false };
  }
  if (read === undefined) throw new GatewayError('invalid_api_key', 'Incorrect API key provided.');
  if (!read.token.enabled) throw new GatewayError('token_disabled', 'This API key has been disabled.');
  return { ok: true, token: read.token, balance: computeKeyBalance(read.token, read.user, read.reservedInFlight) };
}

/** Spec §4.11: token usage and the OpenAI-compatible billing routes. */
export async function accountRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const tokenUsage = async (request: FastifyRequest, reply: FastifyReply) => {
    const fresh = await readFreshToken(services, request);
    // new-api answers a failed lookup with 200 and the /api envelope.
    if (!fresh.ok) return reply.send({ success: false, message: 'query token usage failed' });
    return { code: true, message: 'ok', data: formatTokenUsage(fresh.token, fresh.balance) };
  };
  const usageOptions = { config: { errorStyle: 'api' as const }, onRequest: authenticateUsageCaller(services) };
  app.get('/api/usage/token/', usageOptions, tokenUsage);
  app.get('/api/usage/token', usageOptions, tokenUsage);

  const billing = (format: (token: TokenRecord, balance: KeyBalance, settings: DisplaySettings) => unknown) => async (request: FastifyRequest, reply: FastifyReply) => {
    const fresh = await readFreshToken(services, request);
    if (!fresh.ok) return reply.send(queryQuotaFailed);
    return format(fresh.token, fresh.balance, services.catalog.snapshot.settings);
  };
  // Auth failures keep the OpenAI envelope with 401/403 (new-api's TokenAuth on these paths).
  const billingOptions = { config: { errorStyle: 'openai' as const }, onRequest: authenticateCaller(services, 'openai') };
  for (const prefix of ['', '/v1']) {
    app.get(`${prefix}/dashboard/billing/subscription`, billingOptions, billing(formatBillingSubscription));
    app.get(`${prefix}/dashboard/billing/usage`, billingOptions, billing(formatBillingUsage));
  }
}
