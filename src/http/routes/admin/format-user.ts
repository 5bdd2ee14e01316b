import type { UserRecord } from '../../../catalog/catalog-records.js';

/** A user as the admin API shows it; the password hash is never read into a UserRecord at all. */
export function formatUser(user: UserRecord) {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    group: user.group,
    quota: user.quota,
    unlimited_quota: user.unlimitedQuota,
    used_quota: user.usedQuota,
    request_count: user.requestCount,
    enabled: user.enabled,
    created_at: user.createdAt,
  };
}
