import type { CanonicalRequest, CanonicalTool } from '../../canonical/canonical-request.js';

/**
 * Pure: the tools to declare to an upstream that has no allowed-tools choice of its own (Anthropic, and
 * Chat Completions, whose `allowed_tools` OpenAI-compatible servers other than OpenAI do not take): under
 * an allowed-tools choice only the allowed ones, so the model cannot call another; else every tool.
 */
export function offeredTools(request: CanonicalRequest): CanonicalTool[] {
  const choice = request.toolChoice;
  if (choice?.type !== 'allowed-tools') return request.tools;
  const allowed = new Set(choice.names);
  return request.tools.filter((tool) => allowed.has(tool.name));
}
