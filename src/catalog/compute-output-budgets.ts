import type { ChannelRecord } from './catalog-records.js';

/**
 * Pure, once per catalog load: per model, the largest output limit the gateway itself may send upstream
 * for it when the client names none — `default_max_output_tokens`, or a larger positive number in the
 * `settings.max_tokens` (a number, or a map of upstream model → number) of an enabled channel listing the
 * model (the Anthropic attempt sends that setting; see `defaultMaxTokens`). Admission reserves this much
 * output, so the gateway never asks an upstream for more than the reservation covers. Every number of a
 * map counts, whichever model it names: an over-estimate is only a larger reservation, settled at the
 * actual charge. Only models above the default are listed.
 */
export function computeOutputBudgets(channels: readonly ChannelRecord[], defaultMaxOutputTokens: number): ReadonlyMap<string, number> {
  const budgets = new Map<string, number>();
  for (const channel of channels) {
    if (channel.status !== 'enabled') continue;
    const largest = largestMaxTokens(channel.settings.max_tokens);
    if (largest <= defaultMaxOutputTokens) continue;
    for (const model of channel.models) budgets.set(model, Math.max(budgets.get(model) ?? 0, largest));
  }
  return budgets;
}

function largestMaxTokens(setting: unknown): number {
  const values = typeof setting === 'number' ? [setting] : setting !== null && typeof setting === 'object' ? Object.values(setting) : [];
  let largest = 0;
  for (const value of values) if (typeof value === 'number' && value > largest) largest = value;
  return largest;
}
