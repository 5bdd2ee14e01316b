/** Shared helpers for the tool-call translation audit: hand-written vendor streams and SDK readers. */
import type { CrossStyleFixture } from './harness.js';
import type { ScriptedReply, SseEvent } from '../fakes/scripted-upstream.js';

export type Client = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';
export interface SeenCall { id: string | undefined; name: string; args: unknown }
export interface Seen { text: string; calls: SeenCall[]; stop: string | undefined; usage: any; raw: any }

export const tools = {
  weather: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' }, note: { type: 'string' } } } },
  time: { name: 'get_time', description: 'Time now', parameters: { type: 'object', properties: { tz: { type: 'string' } } } },
};

/** Arguments as JSON text with a \u00e9 escape, an escaped quote and backslash, a precomposed é, CJK and an astral emoji, and their value. */
export const hardArguments = '{"city":"Caf\\u00e9 é 東京 🌧️","note":"a\\"b\\\\c"}';
export const hardArgumentsValue = { city: 'Café é 東京 🌧️', note: 'a"b\\c' };

/** UTF-16 units, one per fragment: an emoji's surrogate pair is split between two fragments. */
export const utf16Units = (text: string): string[] => text.split('');

/** A Chat Completions stream made of exactly these deltas (each one chunk), a finish chunk, an optional usage chunk and [DONE]. */
export function chatDeltas(deltas: Record<string, unknown>[], finish: string | null, usage?: { input: number; output: number }, extra: { finishDelta?: Record<string, unknown> } = {}): ScriptedReply {
  const base = { id: 'chatcmpl-compat', object: 'chat.completion.chunk', created: 1760000000, model: 'compat-model' };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): SseEvent => ({ data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] } });
  const events: SseEvent[] = [chunk({ role: 'assistant', content: '' }), ...deltas.map((d) => chunk(d))];
  if (finish !== null) events.push(chunk(extra.finishDelta ?? {}, finish));
  if (usage !== undefined) events.push({ data: { ...base, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } } });
  events.push({ data: '[DONE]' });
  return { sse: events };
}

/** Sends one user turn with two tools offered, streamed, through the client's official SDK and its stream accumulator. */
export async function ask(fixture: CrossStyleFixture, client: Client, model: string, stream = true, maxTokens = 256): Promise<Seen> {
  const toolList = [tools.weather, tools.time];
  switch (client) {
    case 'anthropic': {
      const body: any = { model, max_tokens: maxTokens, tools: toolList.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })), messages: [{ role: 'user', content: 'go' }] };
      const m = stream ? await fixture.anthropic.messages.stream(body).finalMessage() : await fixture.anthropic.messages.create(body);
      return {
        text: m.content.map((b: any) => (b.type === 'text' ? b.text : '')).join(''),
        calls: m.content.filter((b: any) => b.type === 'tool_use').map((b: any) => ({ id: b.id, name: b.name, args: b.input })),
        stop: m.stop_reason ?? undefined,
        usage: m.usage,
        raw: m,
      };
    }
    case 'openai-chat': {
      const body: any = { model, max_tokens: maxTokens, tools: toolList.map((t) => ({ type: 'function', function: t })), messages: [{ role: 'user', content: 'go' }] };
      const c = stream ? await fixture.openai.chat.completions.stream({ ...body, stream_options: { include_usage: true } }).finalChatCompletion() : await fixture.openai.chat.completions.create(body);
      const choice = c.choices[0]!;
      return {
        text: choice.message.content ?? '',
        calls: (choice.message.tool_calls ?? []).map((t: any) => ({ id: t.id, name: t.function.name, args: parseOr(t.function.arguments) })),
        stop: choice.finish_reason,
        usage: c.usage,
        raw: c,
      };
    }
    case 'openai-responses': {
      const body: any = { model, max_output_tokens: maxTokens, tools: toolList.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false })), input: 'go' };
      const r = stream ? await fixture.openai.responses.stream(body).finalResponse() : await fixture.openai.responses.create(body);
      return {
        text: r.output_text,
        calls: r.output.filter((i: any) => i.type === 'function_call').map((i: any) => ({ id: i.call_id, name: i.name, args: parseOr(i.arguments) })),
        stop: r.status + (r.incomplete_details?.reason ? `:${r.incomplete_details.reason}` : ''),
        usage: r.usage,
        raw: r,
      };
    }
    case 'gemini': {
      const params: any = { model, contents: [{ role: 'user', parts: [{ text: 'go' }] }], config: { maxOutputTokens: maxTokens, tools: [{ functionDeclarations: toolList.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }] } };
      const chunks: any[] = [];
      if (stream) for await (const c of await fixture.gemini.models.generateContentStream(params)) chunks.push(c);
      else chunks.push(await fixture.gemini.models.generateContent(params));
      const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
      return {
        text: parts.filter((p: any) => typeof p.text === 'string' && p.thought !== true).map((p: any) => p.text).join(''),
        calls: parts.filter((p: any) => p.functionCall !== undefined).map((p: any) => ({ id: p.functionCall.id, name: p.functionCall.name, args: p.functionCall.args })),
        stop: chunks.map((c) => c.candidates?.[0]?.finishReason).filter((r) => r !== undefined).at(-1),
        usage: chunks.at(-1)?.usageMetadata,
        raw: chunks,
      };
    }
  }
}

/** Arguments text as the client would read it: parsed JSON, or the raw text marked unparsable. */
export function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { __unparsable: text };
  }
}

export const toolStop: Record<Client, string> = { 'openai-chat': 'tool_calls', anthropic: 'tool_use', 'openai-responses': 'completed', gemini: 'STOP' };
