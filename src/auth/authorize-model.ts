import type { AuthenticatedCaller } from './authenticate-token.js';

/** Pure: whether the token's model_limits let it use `model` (spec §8 per-model token limits). */
export function tokenAllowsModel(caller: AuthenticatedCaller, model: string): boolean {
  const limits = caller.token.modelLimits;
  return limits === null || limits.includes(model);
}
