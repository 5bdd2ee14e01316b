import { describe, expect, it } from 'vitest';
import type { ChannelRecord } from './catalog-records.js';
import { computeOutputBudgets } from './compute-output-budgets.js';

function channel(id: number, models: string[], settings: Record<string, unknown>, status: ChannelRecord['status'] = 'enabled'): ChannelRecord {
  return {
    id, name: `c${id}`, type: 'anthropic', baseUrl: 'http://upstream', keys: ['k'], models, groups: ['default'], priority: 0, weight: 0,
    modelMapping: {}, settings, status, autoDisable: true, statusReason: null, usedQuota: 0, requestCount: 0,
  };
}

describe('computeOutputBudgets', () => {
  it("takes a channel's settings.max_tokens above the default for every model it lists", () => {
    const budgets = computeOutputBudgets([channel(1, ['claude', 'claude-alias'], { max_tokens: 16000 })], 4096);
    expect(Object.fromEntries(budgets)).toEqual({ claude: 16000, 'claude-alias': 16000 });
  });

  it('takes the largest positive number of a map of upstream model → number', () => {
    const budgets = computeOutputBudgets([channel(1, ['claude'], { max_tokens: { 'claude-haiku': 8192, 'claude-opus': 32000, broken: 'x', negative: -5 } })], 4096);
    expect(budgets.get('claude')).toBe(32000);
  });

  it('takes the largest over the channels listing the model', () => {
    const budgets = computeOutputBudgets([channel(1, ['claude'], { max_tokens: 8192 }), channel(2, ['claude', 'other'], { max_tokens: 12000 }), channel(3, ['other'], {})], 4096);
    expect(Object.fromEntries(budgets)).toEqual({ claude: 12000, other: 12000 });
  });

  it('leaves out disabled channels, settings at or below the default, and channels without the setting', () => {
    const budgets = computeOutputBudgets(
      [channel(1, ['a'], { max_tokens: 64000 }, 'disabled'), channel(2, ['b'], { max_tokens: 64000 }, 'auto_disabled'), channel(3, ['c'], { max_tokens: 2048 }), channel(4, ['d'], { max_tokens: 0 }), channel(5, ['e'], {})],
      4096,
    );
    expect(budgets.size).toBe(0);
  });
});
