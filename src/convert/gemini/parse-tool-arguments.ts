/**
 * Canonical tool-call arguments (JSON text) → the object Gemini's `functionCall.args` requires. Empty text
 * means no arguments; anything that is not a JSON object cannot be sent and is reported.
 */
export function parseToolArguments(text: string): { value: Record<string, unknown>; warning?: string } {
  if (text.trim() === '') return { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  } catch {
    // reported below
  }
  return { value: {}, warning: `arguments are not a JSON object and were sent as {} (was ${JSON.stringify(text.slice(0, 200))})` };
}
