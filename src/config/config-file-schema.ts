import { z } from 'zod';
import { largestRowId } from '../storage/largest-row-id.js';
import { resolveModelMapping } from '../routing/resolve-model-mapping.js';
import { parseKlingKey } from '../providers/kling/kling-credentials.js';
import { parseVodKey } from '../providers/tencent-vod/vod-credentials.js';

/**
 * The config file's keys are part of the product's interface (issue #2): names are fixed, unknown keys
 * are refused so that a typo never silently does nothing.
 */
const apiKeyPattern = /^sk-[A-Za-z0-9]{48}$/;

/** A price or a ratio: finite (JSON's 1e400 parses as Infinity, which no charge can be computed from) and not negative. */
export const priceValue = z.number().finite().nonnegative();

/** A service tier's multiplier of the token prices: a dearer tier, so at least 1 (finite, as a price). */
export const tierMultiplier = z.number().finite().min(1);

export const priceSchema = z
  .object({
    input: priceValue.optional(),
    output: priceValue.optional(),
    cache_read: priceValue.optional(),
    cache_write: priceValue.optional(),
    /** Writes to Anthropic's 1-hour cache; unset, they are billed at `cache_write`. */
    cache_write_1h: priceValue.optional(),
    /** Audio input tokens; unset, they are billed at `input`. */
    audio_input: priceValue.optional(),
    /** Audio output tokens; unset, they are billed at `output`. */
    audio_output: priceValue.optional(),
    /** Image input tokens (gpt-image's input images); unset, they are billed at `input`. */
    image_input: priceValue.optional(),
    /** Image output tokens (Gemini's image models, gpt-image); unset, they are billed at `output`. */
    image_output: priceValue.optional(),
    /** Each web search the upstream ran (server-side search tools), per call; unset, searches are not billed. */
    web_search: priceValue.optional(),
    /** OpenAI Priority processing (`service_tier: "priority"`): the multiplier of the token prices; unset, the tier is not sent upstream. */
    priority: tierMultiplier.optional(),
    per_call: priceValue.optional(),
    per_second: priceValue.optional(),
  })
  .strict();

/**
 * A balance in quota units. Stored in BIGINT columns but read into JavaScript numbers, which are exact only
 * up to Number.MAX_SAFE_INTEGER: past it a charge or an adjustment would silently round.
 */
export const quotaAmountSchema = z
  .number()
  .int()
  .nonnegative()
  .max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER} (the largest exact integer)`);

/** Unix seconds; 0 = never. Bounded like balances: the value must survive the round trip exactly. */
export const expiresAtSchema = z
  .number()
  .int()
  .nonnegative()
  .max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER} (unix seconds; 0 = never)`);

// Stored in INTEGER columns: PostgreSQL and MySQL refuse values above 2^31 - 1.
const rateLimitValue = z.number().int().positive().max(2_147_483_647);

/** A site-wide limit (`rate_limits`), stored as an option: 0 = off. */
const siteRateLimitValue = z.number().int().nonnegative().max(2_147_483_647);

export const rateLimitSchema = z
  .object({
    rpm: rateLimitValue.optional(),
    tpm: rateLimitValue.optional(),
  })
  .strict();

/** An output limit in tokens (`settings.max_tokens`): positive, and within the 32-bit columns reservations are computed against. */
const outputTokensValue = z.number().int().positive().max(largestRowId);

/**
 * A channel's `settings`: only the keys the relay reads, each with its type, so that a misspelt key or a
 * value of the wrong type (`api: respones`, `stream_usage: "false"`) stops the start instead of silently
 * doing nothing (or the opposite).
 */
export const channelSettingsSchema = z
  .object({
    /** openai: the upstream speaks the Responses API instead of Chat Completions (build-provider-request.ts). */
    api: z.enum(['chat', 'responses']).optional(),
    /** openai: ask a streamed Chat Completions upstream for `stream_options.include_usage` (default true). */
    stream_usage: z.boolean().optional(),
    /** openai (Chat): send earlier turns' reasoning back as `reasoning_content` (default: DeepSeek models; replays-reasoning.ts). */
    replay_reasoning: z.boolean().optional(),
    /** openai, anthropic, gemini: the upstream model takes a reasoning setting converted from another style — `reasoning_effort` (Chat) / `reasoning` (Responses), `thinking`, `thinkingConfig` (default: by model name; convert/shared/takes-*-reasoning.ts / -thinking.ts). */
    reasoning_effort: z.boolean().optional(),
    /** The output limit sent (and reserved) when a request names none: one number, or upstream model → number. */
    max_tokens: z.union([outputTokensValue, z.record(z.string().min(1), outputTokensValue)]).optional(),
    /** openai (Chat): the field that limit goes in (default by model name; chat-output-limit-field.ts). */
    max_tokens_field: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    /** openai: serve Seedance 2 reference assets (default: when the channel lists a Seedance 2 model; asset-channels.ts). */
    asset_api: z.boolean().optional(),
  })
  .strict();

/** The settings only an `openai` channel reads. */
const openaiOnlySettings = ['api', 'stream_usage', 'replay_reasoning', 'max_tokens_field', 'asset_api'] as const;

/** The settings only a text channel (`openai`, `anthropic`, `gemini`) reads. */
const textOnlySettings = ['reasoning_effort'] as const;

/** `tencent-vod`: Tencent Cloud VOD's AIGC video (spec §4.9.5), keys `SubAppId|SecretId|SecretKey[|Region]`; `suno`: a Suno-API proxy (protocols.md §2); `kling`: Kling's video API, keys `AccessKey|SecretKey` (§3); `midjourney`: a Midjourney-proxy, key = its `mj-api-secret` (§1). */
export const channelTypes = ['openai', 'anthropic', 'gemini', 'tencent-vod', 'suno', 'kling', 'midjourney'] as const;

export const configChannelSchema = z
  .object({
    name: z.string().min(1),
    type: z.enum(channelTypes),
    base_url: z.string().url(),
    key: z.string().min(1).optional(),
    keys: z.array(z.string().min(1)).min(1).optional(),
    models: z.array(z.string().min(1)).min(1),
    groups: z.array(z.string().min(1)).min(1).default(['default']),
    // 32-bit columns on PostgreSQL and MySQL.
    priority: z.number().int().min(-largestRowId - 1).max(largestRowId).default(0),
    weight: z.number().int().nonnegative().max(largestRowId).default(1),
    model_mapping: z.record(z.string(), z.string()).default({}),
    enabled: z.boolean().default(true),
    auto_disable: z.boolean().default(true),
    settings: channelSettingsSchema.default({}),
  })
  .strict()
  .superRefine((channel, context) => {
    if (channel.key === undefined && channel.keys === undefined) context.addIssue({ code: 'custom', message: 'a channel needs `key` or `keys`', path: ['key'] });
    const problem = channelKeyProblem(channel.type, channel.keys ?? (channel.key === undefined ? [] : [channel.key]));
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem, path: [channel.keys === undefined ? 'key' : 'keys'] });
    const settingsProblem = channelSettingsProblem(channel.type, channel.settings);
    if (settingsProblem !== undefined) context.addIssue({ code: 'custom', message: settingsProblem.message, path: ['settings', settingsProblem.key] });
    const urlProblem = baseUrlProblem(channel.base_url);
    if (urlProblem !== undefined) context.addIssue({ code: 'custom', message: urlProblem, path: ['base_url'] });
  });

/**
 * Why a channel cannot use this base URL; undefined when it can. Upstream calls go to the URL's origin and
 * path only (upstream-client.ts), so a user and password in it would never be sent: the operator's
 * credentials would silently do nothing. (Rows stored before this check keep being masked in answers.)
 */
export function baseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // `.url()` reports it
  }
  if (parsed.username === '' && parsed.password === '') return undefined;
  return 'must not carry a user or password (`user:password@`): they are never sent upstream; put the credential in the channel\'s `key` (or `keys`), or in a proxy in front of the upstream';
}

/** A setting this channel type never reads (it would silently do nothing); undefined when there is none. */
export function channelSettingsProblem(type: string, settings: Record<string, unknown>): { key: string; message: string } | undefined {
  if (type === 'openai') return undefined;
  const key = openaiOnlySettings.find((name) => settings[name] !== undefined);
  if (key !== undefined) return { key, message: `applies to openai channels only; this channel's type is ${type}` };
  if (type === 'anthropic' || type === 'gemini') return undefined;
  const textKey = textOnlySettings.find((name) => settings[name] !== undefined);
  return textKey === undefined ? undefined : { key: textKey, message: `applies to openai, anthropic and gemini channels only; this channel's type is ${type}` };
}

/** Why a channel type cannot use these keys (a `tencent-vod` key has its own shape); undefined when it can. */
export function channelKeyProblem(type: string, keys: readonly string[]): string | undefined {
  if (type === 'tencent-vod' && !keys.every((key) => parseVodKey(key) !== undefined)) {
    return 'a tencent-vod key is `SubAppId|SecretId|SecretKey` or `SubAppId|SecretId|SecretKey|Region` (SubAppId in digits)';
  }
  if (type === 'kling' && !keys.every((key) => parseKlingKey(key) !== undefined)) return 'a kling key is `AccessKey|SecretKey`';
  return undefined;
}

export const configUserSchema = z
  .object({
    username: z.string().min(1).max(64),
    password: z.string().min(1).optional(),
    role: z.enum(['root', 'admin', 'user']).default('user'),
    group: z.string().min(1).default('default'),
    quota: quotaAmountSchema.optional(),
    enabled: z.boolean().default(true),
  })
  .strict();

export const configTokenSchema = z
  .object({
    name: z.string().min(1).max(128),
    user: z.string().min(1).optional(),
    key: z.string().regex(apiKeyPattern, 'must be `sk-` followed by 48 letters or digits').optional(),
    group: z.string().min(1).optional(),
    quota: quotaAmountSchema.optional(),
    unlimited_quota: z.boolean().optional(),
    model_limits: z.array(z.string().min(1)).optional(),
    expires_at: expiresAtSchema.default(0),
    rate_limit: rateLimitSchema.optional(),
    enabled: z.boolean().default(true),
  })
  .strict();

export const configFileSchema = z
  .object({
    admin_key: z.string().min(8).optional(),
    quota_per_unit: z.number().int().positive().optional(),
    // Fastify's bodyLimit is whole bytes: a value under one byte would be a limit of 0, which Fastify refuses at start.
    max_body_mb: z.number().min(0.001, 'must be from 0.001 to 1024 (MiB)').max(1024, 'must be from 0.001 to 1024 (MiB)').optional(),
    retry_times: z.number().int().nonnegative().optional(),
    allow_unpriced_models: z.boolean().optional(),
    /** A `conversation` id the gateway does not know is claimed by its first user instead of refused (docs/behaviour.md "Stored responses"). */
    allow_unknown_conversations: z.boolean().optional(),
    default_max_output_tokens: z.number().int().positive().optional(),
    /** Input tokens a realtime session's hold covers besides the output budget (default 16,384). */
    realtime_hold_input_tokens: z.number().int().nonnegative().optional(),
    log_retention_days: z.number().nonnegative().optional(),
    quota_display_type: z.enum(['USD', 'CNY', 'TOKENS']).optional(),
    usd_exchange_rate: z.number().positive().optional(),
    /** Site-wide limits; 0 = off (a token's own `rate_limit` is positive: leave it out for none). */
    rate_limits: z
      .object({
        per_ip: z.object({ rpm: siteRateLimitValue.optional() }).strict().optional(),
        per_user: z.object({ rpm: siteRateLimitValue.optional(), tpm: siteRateLimitValue.optional() }).strict().optional(),
      })
      .strict()
      .optional(),
    groups: z.record(z.string(), priceValue).optional(),
    prices: z.record(z.string(), priceSchema).optional(),
    channels: z.array(configChannelSchema).optional(),
    users: z.array(configUserSchema).optional(),
    tokens: z.array(configTokenSchema).optional(),
  })
  .strict()
  .superRefine((config, context) => {
    // Entries are upserted by name: a second entry of one name would silently replace the first.
    refuseRepeatedNames(config.channels?.map((channel) => channel.name), 'channels', 'name', context);
    refuseRepeatedNames(config.users?.map((user) => user.username), 'users', 'username', context);
    refuseRepeatedNames(config.tokens?.map((token) => token.name), 'tokens', 'name', context);
    for (const [index, channel] of (config.channels ?? []).entries()) refuseMappingLoops(channel.model_mapping, ['channels', index], context);
  });

/** A `model_mapping` whose chain comes back to a name it passed is refused (config file and admin API alike). */
export function refuseMappingLoops(mapping: Record<string, string> | undefined, path: (string | number)[], context: z.RefinementCtx): void {
  for (const model of Object.keys(mapping ?? {})) {
    const resolved = resolveModelMapping(mapping ?? {}, model);
    if (!resolved.ok) context.addIssue({ code: 'custom', path: [...path, 'model_mapping', model], message: `loops: ${resolved.loop.join(' → ')}` });
  }
}

function refuseRepeatedNames(names: string[] | undefined, list: string, field: string, context: z.RefinementCtx): void {
  const first = new Map<string, number>();
  for (const [index, name] of (names ?? []).entries()) {
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, index);
    else context.addIssue({ code: 'custom', path: [list, index, field], message: `"${name}" is already the ${field} of ${list}.${earlier}` });
  }
}

export type ConfigFile = z.infer<typeof configFileSchema>;
export type ConfigChannel = z.infer<typeof configChannelSchema>;
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
export type ConfigUser = z.infer<typeof configUserSchema>;
export type ConfigToken = z.infer<typeof configTokenSchema>;
export type PriceInput = z.infer<typeof priceSchema>;
