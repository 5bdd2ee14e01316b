import { describe, expect, it } from 'vitest';
import type { ChannelRecord } from './catalog-records.js';
import { Catalog, type CatalogRepositories } from './catalog.js';
import { optionKeys } from './site-settings.js';

function repositories(channels: ChannelRecord[], options: Record<string, string>): CatalogRepositories {
  return {
    users: { listAll: async () => [] },
    tokens: { listAll: async () => [] },
    channels: { listAll: async () => channels },
    pricing: { listPrices: async () => [], listGroups: async () => [] },
    options: { all: async () => options },
  } as unknown as CatalogRepositories;
}

const anthropicChannel = (settings: Record<string, unknown>): ChannelRecord => ({
  id: 1, name: 'claude', type: 'anthropic', baseUrl: 'http://upstream', keys: ['k'], models: ['claude'], groups: ['default'], priority: 0, weight: 0,
  modelMapping: {}, settings, status: 'enabled', autoDisable: true, statusReason: null, usedQuota: 0, requestCount: 0,
});

describe('Catalog', () => {
  it("gives each model the output budget to reserve: a channel's larger settings.max_tokens, else default_max_output_tokens", async () => {
    const catalog = new Catalog(repositories([anthropicChannel({ max_tokens: { 'claude-opus-4': 32000 } })], { [optionKeys.defaultMaxOutputTokens]: '4096' }), undefined, () => 'v');
    await catalog.load();
    expect(catalog.snapshot.outputBudgetFor('claude')).toBe(32000);
    expect(catalog.snapshot.outputBudgetFor('gpt-4o')).toBe(4096);
  });

  it('follows default_max_output_tokens when it is above every channel setting', async () => {
    const catalog = new Catalog(repositories([anthropicChannel({ max_tokens: 8192 })], { [optionKeys.defaultMaxOutputTokens]: '10000' }), undefined, () => 'v');
    await catalog.load();
    expect(catalog.snapshot.outputBudgetFor('claude')).toBe(10000);
  });
});
