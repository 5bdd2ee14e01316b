import { describe, expect, it } from 'vitest';
import { resolveServiceTier, withheldTierWarning, withoutServiceTier } from './resolve-service-tier.js';

describe('resolveServiceTier', () => {
  const priced = { model: 'gpt-4o', input: 2.5, output: 10, priority: 1.7 };
  const unpriced = { model: 'gpt-4o', input: 2.5, output: 10 };

  it('sends and bills priority only at a price that names its multiplier, else withholds it', () => {
    expect(resolveServiceTier('openai-chat', { service_tier: 'priority' }, priced)).toBe('priority');
    expect(resolveServiceTier('openai-responses', { service_tier: 'priority' }, priced)).toBe('priority');
    expect(resolveServiceTier('openai-chat', { service_tier: 'priority' }, unpriced)).toBe('withheld');
    expect(resolveServiceTier('openai-responses', { service_tier: 'priority' }, undefined)).toBe('withheld');
  });

  it('takes `fast` as Priority (OpenAI serves and bills it so), and withholds a tier it cannot price', () => {
    expect(resolveServiceTier('openai-chat', { service_tier: 'fast' }, priced)).toBe('priority');
    expect(resolveServiceTier('openai-responses', { service_tier: 'fast' }, priced)).toBe('priority');
    expect(resolveServiceTier('openai-responses', { service_tier: 'fast' }, unpriced)).toBe('withheld');
    for (const tier of ['ultrafast', 'turbo', 'PRIORITY', '']) expect(resolveServiceTier('openai-responses', { service_tier: tier }, priced), tier).toBe('withheld');
    expect(withheldTierWarning('fast')).toMatch(/no priority multiplier/);
    expect(withheldTierWarning('ultrafast')).toMatch(/no price for that tier/);
  });

  it('leaves every other tier, and the other styles, standard', () => {
    for (const tier of ['auto', 'default', 'flex', 'scale', undefined, null, 42]) expect(resolveServiceTier('openai-chat', { service_tier: tier }, priced)).toBe('standard');
    expect(resolveServiceTier('anthropic-messages', { service_tier: 'priority' }, unpriced)).toBe('standard');
    expect(resolveServiceTier('gemini', { service_tier: 'priority' }, unpriced)).toBe('standard');
  });

  it('withholds by copying the body without the field', () => {
    const body = { model: 'gpt-4o', service_tier: 'priority' };
    expect(withoutServiceTier(body)).toEqual({ model: 'gpt-4o' });
    expect(body.service_tier).toBe('priority');
  });
});
