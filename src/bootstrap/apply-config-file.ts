import type { ConfigFile, ConfigToken } from '../config/config-file-schema.js';
import { SettingError } from '../config/setting-error.js';
import { optionKeys } from '../catalog/site-settings.js';
import { generateApiKey, hashApiKey, visiblePrefixOf } from '../security/api-keys.js';
import { changeEndsSessions } from '../security/change-ends-sessions.js';
import { hashPassword, verifyPassword } from '../security/passwords.js';
import type { ChannelsRepository } from '../storage/channels-repository.js';
import type { OptionsRepository } from '../storage/options-repository.js';
import type { PricingRepository } from '../storage/pricing-repository.js';
import type { TokensRepository } from '../storage/tokens-repository.js';
import type { UsersRepository } from '../storage/users-repository.js';

export interface ConfigRepositories {
  users: UsersRepository;
  tokens: TokensRepository;
  channels: ChannelsRepository;
  pricing: PricingRepository;
  options: OptionsRepository;
}

export interface GeneratedTokenKey {
  name: string;
  user: string;
  key: string;
}

/**
 * Applies the config file idempotently: upsert by name/username, delete nothing. Returns the keys it
 * generated for tokens that had none (printed once by the caller).
 */
export async function applyConfigFile(config: ConfigFile, repositories: ConfigRepositories, now: number): Promise<GeneratedTokenKey[]> {
  const { options, pricing } = repositories;
  if (config.quota_per_unit !== undefined) await options.set(optionKeys.quotaPerUnit, String(config.quota_per_unit));
  if (config.max_body_mb !== undefined) await options.set(optionKeys.maxBodyMb, String(config.max_body_mb));
  if (config.retry_times !== undefined) await options.set(optionKeys.retryTimes, String(config.retry_times));
  if (config.allow_unpriced_models !== undefined) await options.set(optionKeys.allowUnpricedModels, String(config.allow_unpriced_models));
  if (config.allow_unknown_conversations !== undefined) await options.set(optionKeys.allowUnknownConversations, String(config.allow_unknown_conversations));
  if (config.default_max_output_tokens !== undefined) await options.set(optionKeys.defaultMaxOutputTokens, String(config.default_max_output_tokens));
  if (config.realtime_hold_input_tokens !== undefined) await options.set(optionKeys.realtimeHoldInputTokens, String(config.realtime_hold_input_tokens));
  if (config.log_retention_days !== undefined) await options.set(optionKeys.logRetentionDays, String(config.log_retention_days));
  if (config.quota_display_type !== undefined) await options.set(optionKeys.quotaDisplayType, config.quota_display_type);
  if (config.usd_exchange_rate !== undefined) await options.set(optionKeys.usdExchangeRate, String(config.usd_exchange_rate));
  if (config.rate_limits !== undefined) {
    await options.set(optionKeys.ipRpm, String(config.rate_limits.per_ip?.rpm ?? 0));
    await options.set(optionKeys.userRpm, String(config.rate_limits.per_user?.rpm ?? 0));
    await options.set(optionKeys.userTpm, String(config.rate_limits.per_user?.tpm ?? 0));
  }
  for (const [name, ratio] of Object.entries(config.groups ?? {})) await pricing.upsertGroup({ name, ratio }, now);
  for (const [model, price] of Object.entries(config.prices ?? {})) {
    await pricing.upsertPrice(
      { model, input: price.input, output: price.output, cacheRead: price.cache_read, cacheWrite: price.cache_write, cacheWrite1h: price.cache_write_1h, audioInput: price.audio_input, audioOutput: price.audio_output, imageInput: price.image_input, imageOutput: price.image_output, webSearch: price.web_search, priority: price.priority, perCall: price.per_call, perSecond: price.per_second },
      now,
    );
  }
  await applyChannels(config, repositories.channels, now);
  await applyUsers(config, repositories.users, now);
  return applyTokens(config.tokens ?? [], repositories, now);
}

async function applyChannels(config: ConfigFile, channels: ChannelsRepository, now: number): Promise<void> {
  for (const channel of config.channels ?? []) {
    const fields = {
      name: channel.name,
      type: channel.type,
      baseUrl: channel.base_url.replace(/\/+$/, ''),
      keys: channel.keys ?? (channel.key === undefined ? [] : [channel.key]),
      models: channel.models,
      groups: channel.groups,
      priority: channel.priority,
      weight: channel.weight,
      modelMapping: channel.model_mapping,
      settings: channel.settings,
      status: channel.enabled ? ('enabled' as const) : ('disabled' as const),
      autoDisable: channel.auto_disable,
    };
    const existing = await channels.getByName(channel.name);
    if (existing === undefined) await channels.create(fields, now);
    else {
      // An automatic disable survives a restart; an operator's `enabled` choice is applied.
      const status = existing.status === 'auto_disabled' && channel.enabled ? existing.status : fields.status;
      await channels.update(existing.id, { ...fields, status }, now);
    }
  }
}

async function applyUsers(config: ConfigFile, users: UsersRepository, now: number): Promise<void> {
  for (const user of config.users ?? []) {
    const existing = await users.getByUsername(user.username);
    const base = { username: user.username, role: user.role, group: user.group, unlimitedQuota: user.quota === undefined, enabled: user.enabled };
    if (existing === undefined) {
      const passwordHash = user.password === undefined ? null : await hashPassword(user.password);
      await users.create({ ...base, quota: user.quota ?? 0, passwordHash }, now);
      continue;
    }
    // The balance is set once, at creation: re-applying the file at each start must not refill wallets.
    const stored = await users.passwordHashOf(user.username);
    const samePassword = user.password === undefined || (await verifyPassword(user.password, stored?.passwordHash ?? null));
    const change = { ...base, ...(samePassword ? {} : { passwordHash: await hashPassword(user.password ?? '') }) };
    await users.update(existing.id, change, now, { endSessions: changeEndsSessions(existing, change) });
  }
}

async function applyTokens(tokens: ConfigToken[], repositories: ConfigRepositories, now: number): Promise<GeneratedTokenKey[]> {
  const generated: GeneratedTokenKey[] = [];
  for (const token of tokens) {
    const username = token.user ?? 'root';
    const owner = token.user === undefined ? (await repositories.users.listAll()).find((user) => user.role === 'root') : await repositories.users.getByUsername(username);
    if (owner === undefined) throw new SettingError(`Config token "${token.name}" names user "${username}", which is neither in the config file nor in the database`);
    const fields = {
      userId: owner.id,
      name: token.name,
      group: token.group ?? null,
      unlimitedQuota: token.unlimited_quota ?? token.quota === undefined,
      modelLimits: token.model_limits ?? null,
      expiresAt: token.expires_at,
      enabled: token.enabled,
      rateLimit: token.rate_limit ?? {},
    };
    const existing = await repositories.tokens.getByName(owner.id, token.name);
    const key = token.key === undefined ? undefined : { hash: hashApiKey(token.key), prefix: visiblePrefixOf(token.key) };
    if (existing === undefined) {
      const keyText = token.key ?? generateApiKey();
      await repositories.tokens.create({ ...fields, remainQuota: token.quota ?? 0 }, { hash: hashApiKey(keyText), prefix: visiblePrefixOf(keyText) }, now);
      if (token.key === undefined) generated.push({ name: token.name, user: owner.username, key: keyText });
    } else {
      // As with users, the grant is applied once; later starts keep what has been spent.
      await repositories.tokens.update(existing.id, fields, now, key);
    }
  }
  return generated;
}
