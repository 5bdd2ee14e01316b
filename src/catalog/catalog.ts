import type { OptionsRepository } from '../storage/options-repository.js';
import type { ChannelsRepository } from '../storage/channels-repository.js';
import type { PricingRepository } from '../storage/pricing-repository.js';
import type { StoredToken, TokensRepository } from '../storage/tokens-repository.js';
import type { UsersRepository } from '../storage/users-repository.js';
import type { ChannelRecord, PriceRecord, TokenRecord, UserRecord } from './catalog-records.js';
import { computeOutputBudgets } from './compute-output-budgets.js';
import { optionKeys, siteSettingsFromOptions, type SiteSettings } from './site-settings.js';

/** Everything the hot path reads, held in memory: no database read per request for auth or routing. */
export interface CatalogSnapshot {
  tokensByHash: ReadonlyMap<string, TokenRecord>;
  tokensById: ReadonlyMap<number, TokenRecord>;
  /** Each user's playground token (`purpose: playground`), by user id. */
  playgroundTokensByUser: ReadonlyMap<number, TokenRecord>;
  usersById: ReadonlyMap<number, UserRecord>;
  channels: readonly ChannelRecord[];
  channelsById: ReadonlyMap<number, ChannelRecord>;
  prices: ReadonlyMap<string, PriceRecord>;
  groupRatios: ReadonlyMap<string, number>;
  settings: SiteSettings;
  /**
   * The output a request for `model` that names no limit must reserve: the largest max_tokens the gateway
   * itself may send upstream for it (`default_max_output_tokens`, or a channel's larger `settings.max_tokens`).
   */
  outputBudgetFor(model: string): number;
  version: string;
}

export interface CatalogRepositories {
  users: UsersRepository;
  tokens: TokensRepository;
  channels: ChannelsRepository;
  pricing: PricingRepository;
  options: OptionsRepository;
}

/** Carries "the catalog changed" between replicas (Redis pub/sub); absent on a single process. */
export interface ChangeNotifier {
  publish(version: string): Promise<void>;
  /**
   * `onVersion` hears each published version. `onResubscribed` hears that the subscription is back after
   * its connection dropped: what was published meanwhile is lost (pub/sub keeps nothing for an absent
   * subscriber), so the listener must look at the stored version itself.
   */
  subscribe(onVersion: (version: string) => void, onResubscribed: () => void): Promise<void>;
  close(): Promise<void>;
}

export class Catalog {
  private current: CatalogSnapshot | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private reloading: Promise<void> | undefined;

  constructor(
    private readonly repositories: CatalogRepositories,
    private readonly notifier: ChangeNotifier | undefined,
    private readonly newVersion: () => string,
  ) {}

  get snapshot(): CatalogSnapshot {
    if (this.current === undefined) throw new Error('catalog used before load()');
    return this.current;
  }

  async load(): Promise<void> {
    const [users, tokens, channels, prices, groups, options] = await Promise.all([
      this.repositories.users.listAll(),
      this.repositories.tokens.listAll(),
      this.repositories.channels.listAll(),
      this.repositories.pricing.listPrices(),
      this.repositories.pricing.listGroups(),
      this.repositories.options.all(),
    ]);
    const settings = siteSettingsFromOptions(options);
    const outputBudgets = computeOutputBudgets(channels, settings.defaultMaxOutputTokens);
    this.current = {
      tokensByHash: new Map(tokens.map((token: StoredToken) => [token.keyHash, token])),
      tokensById: new Map(tokens.map((token) => [token.id, token])),
      playgroundTokensByUser: new Map(tokens.filter((token) => token.purpose === 'playground').map((token) => [token.userId, token])),
      usersById: new Map(users.map((user) => [user.id, user])),
      channels,
      channelsById: new Map(channels.map((channel) => [channel.id, channel])),
      prices: new Map(prices.map((price) => [price.model, price])),
      groupRatios: new Map([['default', 1], ...groups.map((group) => [group.name, group.ratio] as const)]),
      settings,
      outputBudgetFor: (model) => outputBudgets.get(model) ?? settings.defaultMaxOutputTokens,
      version: options[optionKeys.catalogVersion] ?? '',
    };
  }

  /** Call after every write to users, tokens, channels, prices, groups or options. */
  async changed(): Promise<void> {
    const version = this.newVersion();
    await this.repositories.options.set(optionKeys.catalogVersion, version);
    await this.reload();
    // The write is done: a Redis that cannot be told leaves the replicas to their next sync (SYNC_FREQUENCY).
    await this.notifier?.publish(version).catch(() => undefined);
  }

  async reload(): Promise<void> {
    // Coalesce concurrent reloads: one in flight is enough, but a change after it started needs another.
    if (this.reloading !== undefined) await this.reloading;
    this.reloading = this.load().finally(() => {
      this.reloading = undefined;
    });
    await this.reloading;
  }

  /**
   * Keeps replicas fresh: a Redis message when there is Redis, and a cheap version poll unless
   * SYNC_FREQUENCY is 0. A Redis subscriber that reconnected checks the stored version as the poll does:
   * with the poll off, a change published while it was away would otherwise never be loaded.
   */
  async startSync(pollIntervalMs: number): Promise<void> {
    await this.notifier?.subscribe(
      (version) => {
        if (version !== this.current?.version) void this.reload().catch(() => undefined);
      },
      () => void this.reloadIfStale().catch(() => undefined),
    );
    if (pollIntervalMs <= 0) return;
    this.pollTimer = setInterval(() => void this.reloadIfStale().catch(() => undefined), pollIntervalMs);
    this.pollTimer.unref();
  }

  /** Reloads when the stored catalog version is not the one loaded. */
  private async reloadIfStale(): Promise<void> {
    const version = await this.repositories.options.get(optionKeys.catalogVersion);
    if (version !== undefined && version !== this.current?.version) await this.reload();
  }

  async stop(): Promise<void> {
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    await this.notifier?.close();
  }
}
