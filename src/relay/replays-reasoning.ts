import type { ChannelRecord } from '../catalog/catalog-records.js';

/**
 * Pure: whether a Chat Completions channel is sent the reasoning text of earlier assistant turns (as
 * `reasoning_content`). DeepSeek's thinking mode refuses a tool-call turn replayed without it with a 400
 * ("The reasoning_content in the thinking mode must be passed back to the API", api-docs.deepseek.com
 * thinking_mode, "Tool calls"), while OpenAI refuses the unknown field. The channel's
 * `settings.replay_reasoning` (true / false) decides; unset, DeepSeek models get it.
 */
export function replaysReasoning(channel: Pick<ChannelRecord, 'settings'>, upstreamModel: string): boolean {
  const setting = channel.settings.replay_reasoning;
  return typeof setting === 'boolean' ? setting : /deepseek/i.test(upstreamModel);
}
