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
  /** The client's request, whose settings the Response object repeats (ConversionContext.requestEcho). */
  request?: Readonly<Record<string, unknown>> | undefined;
}

/** The request settings a Response object repeats as the client sent them (those the gateway applies). */
const echoedSettings = ['instructions', 'max_output_tokens', 'parallel_tool_calls', 'reasoning', 'temperature', 'text', 'tool_choice', 'tools', 'top_p', 'truncation', 'user', 'metadata'] as const;

/**
 * The Response object a Responses client receives, in the key order OpenAI sends. The request settings it
 * repeats (instructions, tools, temperature …) are the client's own where the request is known (given
 * `request`), else the API's neutral values. `store`, `background` and `previous_response_id` keep theirs:
 * a converted request is neither stored, nor run in the background, nor continued from a stored one.
 */
export function formatOpenaiResponsesEnvelope(fields: OpenaiResponsesEnvelopeFields): Record<string, unknown> {
  const envelope: Record<string, unknown> = {
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
  const request = fields.request;
  if (request !== undefined) {
    for (const setting of echoedSettings) {
      const value = request[setting];
      if (value !== undefined && value !== null) envelope[setting] = value;
    }
  }
  return envelope;
}
