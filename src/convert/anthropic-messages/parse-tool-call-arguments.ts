import type { Converted } from '../../canonical/conversion.js';

/**
 * Canonical tool-call arguments (JSON text) → the object Anthropic's `tool_use.input` must be. Anthropic
 * streams "" for a call without arguments, meaning `{}`; anything that is not a JSON object cannot be sent.
 */
export function parseToolCallArguments(text: string): Converted<Record<string, unknown>> {
  if (text.trim() === '') return { value: {}, warnings: [] };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { value: value as Record<string, unknown>, warnings: [] };
  } catch {
    // reported below
  }
  return { value: {}, warnings: [`tool-call arguments are not a JSON object, sent as {}: ${JSON.stringify(text.slice(0, 200))}`] };
}
