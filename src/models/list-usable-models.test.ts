import { describe, expect, it } from 'vitest';
import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import type { ChannelRecord, TokenRecord, UserRecord } from '../catalog/catalog-records.js';
import type { CatalogSnapshot } from '../catalog/catalog.js';
import { listUsableModels, type ModelPricing, type UsableModel } from './list-usable-models.js';

function channel(id: number, overrides: Partial<ChannelRecord>): ChannelRecord {
  return {
    id,
    name: `channel${id}`,
    type: 'openai',
    baseUrl: 'https://x.example',
    keys: ['k'],
    models: [],
    groups: ['default'],
    priority: 0,
    weight: 1,
    modelMapping: {},
    settings: {},
    status: 'enabled',
    autoDisable: true,
    statusReason: null,
    usedQuota: 0,
    requestCount: 0,
    ...overrides,
  };
}

const user: UserRecord = { id: 1, username: 'u', role: 'user', group: 'default', quota: 0, unlimitedQuota: true, usedQuota: 0, requestCount: 0, enabled: true, sessionVersion: 0, createdAt: 0 };
const token: TokenRecord = {
  id: 1,
  userId: 1,
  name: 't',
  keyPrefix: 'sk-',
  group: null,
  remainQuota: 0,
  usedQuota: 0,
  unlimitedQuota: true,
  modelLimits: null,
  expiresAt: 0,
  enabled: true,
  rateLimit: {},
  requestCount: 0,
  createdAt: 0,
  purpose: 'api',
};

function caller(overrides: { group?: string; modelLimits?: string[] | null; pinnedChannelId?: number } = {}): AuthenticatedCaller {
  return { user, token: { ...token, modelLimits: overrides.modelLimits ?? null }, group: overrides.group ?? 'default', pinnedChannelId: overrides.pinnedChannelId, keyHash: undefined, snapshot: {} as CatalogSnapshot };
}

const channels = [
  channel(1, { type: 'openai', models: ['gpt-4o-mini', 'gpt-4o'], priority: 0 }),
  channel(2, { type: 'azure', models: ['gpt-4o'], priority: 5 }),
  channel(3, { type: 'anthropic', models: ['claude-3-5-haiku'], groups: ['vip'] }),
  channel(4, { type: 'gemini', models: ['gemini-2.0-flash'], status: 'disabled' }),
  channel(5, { type: 'gemini', models: ['gemini-1.5-pro'], status: 'auto_disabled' }),
  channel(6, { type: 'anthropic', models: ['claude-sonnet-4'], groups: ['default', 'vip'] }),
];

const ids = (models: UsableModel[]) => models.map((model) => model.id);

const everyModelPriced: ModelPricing = {
  prices: new Map(channels.flatMap((served) => served.models).map((model) => [model, { model, input: 1, output: 2 }])),
  allowUnpricedModels: false,
};

describe('listUsableModels', () => {
  it('lists the models of enabled channels in the caller’s group, sorted and without duplicates', () => {
    expect(ids(listUsableModels(channels, caller(), everyModelPriced))).toEqual(['claude-sonnet-4', 'gpt-4o', 'gpt-4o-mini']);
    expect(ids(listUsableModels(channels, caller({ group: 'vip' }), everyModelPriced))).toEqual(['claude-3-5-haiku', 'claude-sonnet-4']);
  });

  it('keeps only the token’s model_limits', () => {
    expect(ids(listUsableModels(channels, caller({ modelLimits: ['gpt-4o', 'claude-3-5-haiku', 'not-served'] }), everyModelPriced))).toEqual(['gpt-4o']);
    expect(listUsableModels(channels, caller({ modelLimits: [] }), everyModelPriced)).toEqual([]);
  });

  it('names the type of the highest-priority channel as the owner', () => {
    expect(listUsableModels(channels, caller(), everyModelPriced).find((model) => model.id === 'gpt-4o')?.ownedBy).toBe('azure');
  });

  it('names the types of every channel that serves the model to the caller', () => {
    const served = [channel(1, { type: 'openai', models: ['m'], priority: 5 }), channel(2, { type: 'gemini', models: ['m'] }), channel(3, { type: 'anthropic', models: ['m'], groups: ['vip'] }), channel(4, { type: 'anthropic', models: ['m'], status: 'disabled' })];
    const prices = { prices: new Map([['m', { model: 'm', input: 1 }]]), allowUnpricedModels: false };
    expect(listUsableModels(served, caller(), prices)).toEqual([{ id: 'm', ownedBy: 'openai', channelTypes: ['gemini', 'openai'] }]);
  });

  it('lists only the pinned channel’s models for a pinned request', () => {
    expect(ids(listUsableModels(channels, caller({ pinnedChannelId: 2 }), everyModelPriced))).toEqual(['gpt-4o']);
  });

  it('leaves out a model without a price unless unpriced models are allowed, as the relay refuses it (400 price_not_configured)', () => {
    const prices = new Map([...everyModelPriced.prices].filter(([model]) => model !== 'gpt-4o'));
    // A price with only an output figure cannot bill a request either (isPriced).
    prices.set('claude-sonnet-4', { model: 'claude-sonnet-4', output: 2 });
    expect(ids(listUsableModels(channels, caller(), { prices, allowUnpricedModels: false }))).toEqual(['gpt-4o-mini']);
    expect(ids(listUsableModels(channels, caller(), { prices, allowUnpricedModels: true }))).toEqual(['claude-sonnet-4', 'gpt-4o', 'gpt-4o-mini']);
  });

  it('lists a free model (a price of 0 is a price)', () => {
    const prices = new Map([['gpt-4o-mini', { model: 'gpt-4o-mini', input: 0, output: 0 }]]);
    expect(ids(listUsableModels(channels, caller(), { prices, allowUnpricedModels: false }))).toEqual(['gpt-4o-mini']);
  });
});
