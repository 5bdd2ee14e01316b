import type { ConfigFile } from '../../src/config/config-file-schema.js';

/** Keys of the seeded tokens (config keys are `sk-` + 48 letters or digits). */
export const keys = {
  limited: `sk-${'L'.repeat(48)}`,
  unlimited: `sk-${'U'.repeat(48)}`,
  expired: `sk-${'E'.repeat(48)}`,
  exhausted: `sk-${'X'.repeat(48)}`,
  disabled: `sk-${'D'.repeat(48)}`,
  bannedUser: `sk-${'B'.repeat(48)}`,
  unknown: `sk-${'Q'.repeat(48)}`,
};

/** 2100-01-01T00:00:00Z */
export const farFuture = 4_102_444_800;

export const accountConfig: ConfigFile = {
  users: [
    { username: 'alice', role: 'user', group: 'default', quota: 10_000_000, enabled: true },
    { username: 'mallory', role: 'user', group: 'default', quota: 10_000_000, enabled: false },
    // No quota: an unlimited user, so that the unlimited token shows new-api's figures (a limited user's would bound it).
    { username: 'ursula', role: 'user', group: 'default', enabled: true },
  ],
  tokens: [
    { name: 'limited', user: 'alice', key: keys.limited, quota: 750_000, model_limits: ['gpt-4o-mini', 'claude-3-5-haiku'], expires_at: farFuture, enabled: true },
    { name: 'unlimited', user: 'ursula', key: keys.unlimited, unlimited_quota: true, expires_at: 0, enabled: true },
    { name: 'expired', user: 'alice', key: keys.expired, quota: 1_000, expires_at: 1, enabled: true },
    { name: 'exhausted', user: 'alice', key: keys.exhausted, quota: 0, expires_at: 0, enabled: true },
    { name: 'disabled', user: 'alice', key: keys.disabled, quota: 1_000, expires_at: 0, enabled: false },
    { name: 'banned-user', user: 'mallory', key: keys.bannedUser, quota: 1_000, expires_at: 0, enabled: true },
  ],
};

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function getJson(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await fetch(`${baseUrl}${path}`, { headers });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export const billingPaths = ['/dashboard/billing/subscription', '/v1/dashboard/billing/subscription', '/dashboard/billing/usage', '/v1/dashboard/billing/usage'];
export const usagePaths = ['/api/usage/token/', '/api/usage/token'];
