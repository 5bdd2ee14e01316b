/**
 * A fake OpenAI Responses upstream that replays real recorded traffic
 * (../shared/reference/recorded/openai-responses: a reasoning model answering "12 + 7 … = 570"), for
 * end-to-end tests of channels that speak Responses. `POST /v1/responses` streams the recorded
 * response that answers in text (`event: <type>` + `data: <json>`, no [DONE]) or answers the recorded body; `POST
 * /v1/responses/compact` answers a CompactedResponse.
 */
import { readFileSync } from 'node:fs';
import { startFakeServer, type FakeDialect, type FakeUpstream, type WireReply } from './fake-server.js';

const recorded = new URL('../../../shared/reference/recorded/openai-responses/', import.meta.url);

/** The recording holds several responses back to back; the one that answers in text is replayed. */
function recordedTextStream(): string[] {
  const lines = readFileSync(new URL('openai-reasoning-encrypted-content.1.chunks.txt', recorded), 'utf8').trim().split('\n');
  let start = 0;
  for (let index = 0; index < lines.length; index += 1) {
    if (!(lines[index] ?? '').includes('"type":"response.completed"')) continue;
    const segment = lines.slice(start, index + 1);
    if (segment.some((line) => line.includes('"type":"response.output_text.delta"'))) return segment;
    start = index + 1;
  }
  throw new Error('no recorded response answers in text');
}

/** The usage the replayed stream reports in its `response.completed` event. */
export function recordedStreamUsage(): { input_tokens: number; output_tokens: number } {
  const completed = JSON.parse(recordedTextStream().at(-1) ?? '{}') as { response: { usage: { input_tokens: number; output_tokens: number } } };
  return completed.response.usage;
}

export const recordedResponsesText = '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570';
export const recordedResponsesUsage = { input_tokens: 865, output_tokens: 163, reasoning_tokens: 128 };

export type FakeOpenaiResponsesUpstream = FakeUpstream<{ expectedKey: string }>;

export function startFakeOpenaiResponsesUpstream(expectedKey: string): Promise<FakeOpenaiResponsesUpstream> {
  const stream = recordedTextStream();
  const body = readFileSync(new URL('openai-reasoning-encrypted-content.1.json', recorded), 'utf8');
  const json = (status: number, text: string): WireReply => ({ kind: 'whole', status, headers: { 'content-type': 'application/json' }, text });
  const dialect: FakeDialect<{ expectedKey: string }> = {
    answer({ request, recorded: { path }, parsed, options }) {
      if (request.headers.authorization !== `Bearer ${options.expectedKey}`) {
        return json(401, JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
      }
      if (path === '/v1/responses/compact') return json(200, JSON.stringify(compactedResponse));
      if (path !== '/v1/responses') return json(404, JSON.stringify({ error: { message: `Invalid URL (POST ${path})`, type: 'invalid_request_error', param: null, code: null } }));
      const refusal = parsed.ok ? refuseToolChoice(parsed.value) : undefined;
      if (refusal !== undefined) return json(400, JSON.stringify({ error: { message: refusal, type: 'invalid_request_error', param: 'tool_choice', code: null } }));
      if (!parsed.ok || (parsed.value as { stream?: unknown } | undefined)?.stream !== true) return json(200, body);
      // The whole recording in one write, as the recorded stream arrives from a replay: no pacing between events.
      const text = stream.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`).join('');
      return { kind: 'stream', headers: { 'content-type': 'text/event-stream; charset=utf-8' }, pieces: [text], chunkDelayMs: 0 };
    },
    answerStatusFault: (fault) => ({ headers: { 'content-type': 'application/json' }, text: typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body ?? {}) }),
    answerInternalError: (message) => ({ headers: { 'content-type': 'application/json' }, text: JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } }) }),
  };
  return startFakeServer({ expectedKey }, dialect);
}

/**
 * The Responses API takes `tools: []` (OpenAI's Agents SDK sends one for an agent without tools, and every
 * response echoes `tools`) and `parallel_tool_calls` or a `none`/`auto` choice without tools, but refuses a
 * choice that cannot be met: "Tool choice 'required' must be specified with 'tools' parameter." (ChatGPT's
 * Codex Responses backend, quoted in lidge-jun/ima2-gen), and a named function not declared (vLLM's
 * Responses validator copies both messages).
 */
function refuseToolChoice(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { tools, tool_choice: choice } = body as { tools?: unknown; tool_choice?: unknown };
  const declared = Array.isArray(tools) ? tools : [];
  if (choice === 'required' && declared.length === 0) return "Tool choice 'required' must be specified with 'tools' parameter.";
  if (typeof choice !== 'object' || choice === null || (choice as { type?: unknown }).type !== 'function') return undefined;
  const name = (choice as { name?: unknown }).name;
  return declared.some((tool) => (tool as { type?: unknown; name?: unknown } | null)?.type === 'function' && (tool as { name?: unknown }).name === name) ? undefined : "Tool choice 'function' not found in 'tools' parameter.";
}

const compactedResponse = {
  id: 'resp_compact_001',
  object: 'response.compaction',
  created_at: 1765552659,
  output: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'earlier question' }] }, { type: 'compaction', id: 'cmp_001', encrypted_content: 'gAAAAB-opaque' }],
  usage: { input_tokens: 1200, input_tokens_details: { cached_tokens: 0 }, output_tokens: 300, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1500 },
};
