import type { TokenRecord } from '../../../catalog/catalog-records.js';

/** A token as the admin API shows it: only the visible prefix of its key (the hash never leaves storage). */
export function formatToken(token: TokenRecord) {
  return {
    id: token.id,
    user_id: token.userId,
    name: token.name,
    key_prefix: token.keyPrefix,
    group: token.group,
    quota: token.remainQuota,
    unlimited_quota: token.unlimitedQuota,
    used_quota: token.usedQuota,
    model_limits: token.modelLimits,
    expires_at: token.expiresAt,
    enabled: token.enabled,
    rate_limit: token.rateLimit,
    request_count: token.requestCount,
    created_at: token.createdAt,
  };
}
