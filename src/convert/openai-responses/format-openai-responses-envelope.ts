import type { OpenaiResponsesUsage } from './read-openai-responses-usage.js';

export interface OpenaiResponsesEnvelopeFields {
  id: string;
  createdAt: number;
  model: string;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  output: Record<string, unknown>[];
  usage: OpenaiResponsesUsage | null;
  incompleteDetails: { reason: string } | null;
  error: { code: string; message: string } | null;
  /** Unix seconds; null until the response is done. */
  completedAt: number | null;
}

/**
 * The Response object a Responses client receives, in the key order OpenAI sends. The echoed request settings
 * (instructions, tools, temperature …) are not known to a converter, which sees only the answer: they carry the
 * API's neutral values, as OpenAI's own `response.created` does before settings apply.
 */
export function formatOpenaiResponsesEnvelope(fields: OpenaiResponsesEnvelopeFields): Record<string, unknown> {
  return {
    id: fields.id,
    object: 'response',
    created_at: fields.createdAt,
    status: fields.status,
    background: false,
    completed_at: fields.completedAt,
    error: fields.error,
    incomplete_details: fields.incompleteDetails,
    instructions: null,
    max_output_tokens: null,
    model: fields.model,
    output: fields.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: fields.usage,
    user: null,
    metadata: {},
  };
}
