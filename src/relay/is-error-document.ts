/**
 * The fields an answer delivers its result in: OpenAI-style endpoints (`data`, `choices`, `results`,
 * Responses `output`), Anthropic Messages (`content`), Gemini (`candidates`).
 */
const resultFields = ['data', 'choices', 'results', 'output', 'content', 'candidates'] as const;

/**
 * Pure: whether a 2xx answer is an error document — `{"error": {…}}` with none of the fields an answer
 * delivers its result in (Anthropic's `{"type": "error", "error": {…}}` and Gemini's `{"error": {code,
 * message, status}}` are such). Some upstreams (gateways chained as channels) answer a failure so: it
 * delivered nothing and costs nothing.
 */
export function isErrorDocument(json: unknown): boolean {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return false;
  const document = json as Record<string, unknown>;
  const error = document.error;
  if (error === null || typeof error !== 'object') return false;
  return resultFields.every((field) => document[field] === undefined || document[field] === null);
}
