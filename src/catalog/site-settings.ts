/** Site-wide settings that the config file or admin API set and every replica reads from the options table. */
export interface SiteSettings {
  quotaPerUnit: number;
  maxBodyMb: number;
  retryTimes: number;
  allowUnpricedModels: boolean;
  /**
   * A `conversation` the gateway does not know (not made through it, or forgotten) becomes the conversation
   * of the first user who names it, as before the Conversations API was relayed; off, it is refused as unknown.
   */
  allowUnknownConversations: boolean;
  /** Display unit of the compat billing routes: USD, CNY (with usdExchangeRate) or TOKENS (raw quota). */
  quotaDisplayType: 'USD' | 'CNY' | 'TOKENS';
  usdExchangeRate: number;
  adminKeyHash: string | undefined;
  /** Output tokens assumed for a reservation when the request names no max_tokens. */
  defaultMaxOutputTokens: number;
  /** Input tokens a realtime session's hold covers besides the model's output budget (docs/behaviour.md "Realtime"). */
  realtimeHoldInputTokens: number;
  ipRpm: number;
  userRpm: number;
  userTpm: number;
  /** Request log rows older than this many days are deleted (start-retention.ts); 0 keeps them all. */
  logRetentionDays: number;
}

export const defaultSiteSettings: SiteSettings = {
  quotaPerUnit: 500_000,
  maxBodyMb: 64,
  retryTimes: 2,
  allowUnpricedModels: false,
  allowUnknownConversations: false,
  quotaDisplayType: 'USD',
  usdExchangeRate: 7.3,
  adminKeyHash: undefined,
  defaultMaxOutputTokens: 4096,
  realtimeHoldInputTokens: 16_384,
  ipRpm: 0,
  userRpm: 0,
  userTpm: 0,
  logRetentionDays: 0,
};

/** Option keys in the options table. */
export const optionKeys = {
  catalogVersion: 'catalog_version',
  adminKeyHash: 'admin_key_hash',
  /** Signs console session cookies when SESSION_SECRET is unset; generated at the first start. */
  sessionSecret: 'session_secret',
  quotaPerUnit: 'quota_per_unit',
  maxBodyMb: 'max_body_mb',
  retryTimes: 'retry_times',
  allowUnpricedModels: 'allow_unpriced_models',
  allowUnknownConversations: 'allow_unknown_conversations',
  quotaDisplayType: 'quota_display_type',
  usdExchangeRate: 'usd_exchange_rate',
  defaultMaxOutputTokens: 'default_max_output_tokens',
  realtimeHoldInputTokens: 'realtime_hold_input_tokens',
  ipRpm: 'rate_limit_ip_rpm',
  userRpm: 'rate_limit_user_rpm',
  userTpm: 'rate_limit_user_tpm',
  logRetentionDays: 'log_retention_days',
} as const;

export function siteSettingsFromOptions(options: Record<string, string>): SiteSettings {
  const number = (key: string, fallback: number) => {
    const value = options[key];
    const parsed = value === undefined ? Number.NaN : Number(value);
    return Number.isFinite(parsed) ? parsed : fallback;
  };
  const displayType = options[optionKeys.quotaDisplayType];
  return {
    quotaPerUnit: number(optionKeys.quotaPerUnit, defaultSiteSettings.quotaPerUnit),
    maxBodyMb: number(optionKeys.maxBodyMb, defaultSiteSettings.maxBodyMb),
    retryTimes: number(optionKeys.retryTimes, defaultSiteSettings.retryTimes),
    allowUnpricedModels: options[optionKeys.allowUnpricedModels] === 'true',
    allowUnknownConversations: options[optionKeys.allowUnknownConversations] === 'true',
    quotaDisplayType: displayType === 'CNY' || displayType === 'TOKENS' ? displayType : 'USD',
    usdExchangeRate: number(optionKeys.usdExchangeRate, defaultSiteSettings.usdExchangeRate),
    adminKeyHash: options[optionKeys.adminKeyHash],
    defaultMaxOutputTokens: number(optionKeys.defaultMaxOutputTokens, defaultSiteSettings.defaultMaxOutputTokens),
    realtimeHoldInputTokens: number(optionKeys.realtimeHoldInputTokens, defaultSiteSettings.realtimeHoldInputTokens),
    ipRpm: number(optionKeys.ipRpm, defaultSiteSettings.ipRpm),
    userRpm: number(optionKeys.userRpm, defaultSiteSettings.userRpm),
    userTpm: number(optionKeys.userTpm, defaultSiteSettings.userTpm),
    logRetentionDays: number(optionKeys.logRetentionDays, defaultSiteSettings.logRetentionDays),
  };
}
