/** Loads the shared recorded provider streams and computes, independently of the gateway, what each one says. */
import { readFileSync } from 'node:fs';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';

import { fileURLToPath } from 'node:url';

/** The shared recordings, beside the checkout (as test/openai-endpoints/chat-responses-usage.test.ts reads them). */
const REC = fileURLToPath(new URL('../../../shared/reference/recorded', import.meta.url));

export interface Recording {
  name: string;
  style: WireStyle;
  lines: string[];
}

export interface Content {
  text: string;
  reasoning: string;
  tools: { name: string; args: unknown }[];
  stop: 'stop' | 'tool' | 'length' | 'refusal';
  input: number;
  output: number;
}

function lines(path: string): string[] {
  return readFileSync(`${REC}/${path}`, 'utf8').split('\n').filter((l) => l.trim() !== '');
}

/** A Responses recording of several back-to-back responses, cut into one recording each. */
function segments(path: string): string[][] {
  const out: string[][] = [[]];
  for (const line of lines(path)) {
    out.at(-1)!.push(line);
    if (/^response\.(completed|incomplete|failed)$/.test(JSON.parse(line).type)) out.push([]);
  }
  return out.filter((s) => s.length > 0);
}

export function recordings(): Recording[] {
  const r: Recording[] = [];
  for (const n of ['anthropic-clear-thinking.1', 'anthropic-json-tool.1', 'anthropic-message-delta-input-tokens', 'anthropic-refusal', 'anthropic-text', 'anthropic-tool-no-args'])
    r.push({ name: n, style: 'anthropic', lines: lines(`anthropic-messages/${n}.chunks.txt`) });
  for (const n of ['google-reasoning', 'google-stream-tool-call-arguments', 'google-text', 'google-tool-call'])
    r.push({ name: n, style: 'gemini', lines: lines(`gemini/${n}.chunks.txt`) });
  for (const n of ['deepseek-reasoning', 'deepseek-text', 'deepseek-tool-call', 'openai-text'])
    r.push({ name: n, style: 'openai-chat', lines: lines(`openai-chat/${n}.chunks.txt`) });
  segments('openai-responses/openai-reasoning-encrypted-content.1.chunks.txt').forEach((s, i) =>
    r.push({ name: `openai-reasoning-encrypted-content#${i}`, style: 'openai-responses', lines: s }),
  );
  r.push({ name: 'openai-custom-tool', style: 'openai-responses', lines: lines('openai-responses/openai-custom-tool.1.chunks.txt') });
  return r;
}

/** The recording as the provider frames it on the wire. */
export function wireText(rec: Recording): string {
  switch (rec.style) {
    case 'anthropic':
    case 'openai-responses':
      return rec.lines.map((l) => `event: ${JSON.parse(l).type}\ndata: ${l}\n\n`).join('');
    case 'openai-chat':
      return [...rec.lines, '[DONE]'].map((l) => `data: ${l}\n\n`).join('');
    case 'gemini':
      return rec.lines.map((l) => `data: ${l}\r\n\r\n`).join('');
  }
}

/** The recording's events as separate raw pieces (one write each). */
export function wirePieces(rec: Recording): string[] {
  switch (rec.style) {
    case 'anthropic':
    case 'openai-responses':
      return rec.lines.map((l) => `event: ${JSON.parse(l).type}\ndata: ${l}\n\n`);
    case 'openai-chat':
      return [...rec.lines, '[DONE]'].map((l) => `data: ${l}\n\n`);
    case 'gemini':
      return rec.lines.map((l) => `data: ${l}\r\n\r\n`);
  }
}

export function replyOf(rec: Recording, extra: Partial<ScriptedReply> = {}): ScriptedReply {
  return { raw: wirePieces(rec), ...extra };
}

const parseArgs = (s: string): unknown => (s.trim() === '' ? {} : JSON.parse(s));

export function contentOf(rec: Recording): Content {
  const ev = rec.lines.map((l) => JSON.parse(l));
  const c: Content = { text: '', reasoning: '', tools: [], stop: 'stop', input: 0, output: 0 };
  switch (rec.style) {
    case 'anthropic': {
      const blocks: any[] = [];
      let inputBase = 0;
      for (const e of ev) {
        if (e.type === 'message_start') {
          const u = e.message.usage;
          inputBase = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
          c.output = u.output_tokens ?? 0;
        } else if (e.type === 'content_block_start') blocks[e.index] = { ...e.content_block, json: '' };
        else if (e.type === 'content_block_delta') {
          const b = blocks[e.index];
          if (e.delta.type === 'text_delta') c.text += e.delta.text;
          else if (e.delta.type === 'thinking_delta') c.reasoning += e.delta.thinking;
          else if (e.delta.type === 'input_json_delta') b.json += e.delta.partial_json;
        } else if (e.type === 'message_delta') {
          const u = e.usage;
          if (u.input_tokens !== undefined) inputBase = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
          c.output = u.output_tokens;
          c.stop = ({ end_turn: 'stop', tool_use: 'tool', max_tokens: 'length', refusal: 'refusal' } as any)[e.delta.stop_reason];
        }
      }
      c.input = inputBase;
      c.tools = blocks.filter((b) => b?.type === 'tool_use').map((b) => ({ name: b.name, args: parseArgs(b.json) }));
      return c;
    }
    case 'openai-chat': {
      const calls: any[] = [];
      for (const e of ev) {
        for (const ch of e.choices ?? []) {
          const d = ch.delta ?? {};
          if (typeof d.content === 'string') c.text += d.content;
          if (typeof d.reasoning_content === 'string') c.reasoning += d.reasoning_content;
          for (const t of d.tool_calls ?? []) {
            calls[t.index] ??= { name: '', args: '' };
            if (t.function?.name) calls[t.index].name += t.function.name;
            if (t.function?.arguments) calls[t.index].args += t.function.arguments;
          }
          if (ch.finish_reason) c.stop = ({ stop: 'stop', tool_calls: 'tool', length: 'length' } as any)[ch.finish_reason];
        }
        if (e.usage) {
          c.input = e.usage.prompt_tokens;
          c.output = e.usage.completion_tokens;
        }
      }
      c.tools = calls.map((t) => ({ name: t.name, args: parseArgs(t.args) }));
      return c;
    }
    case 'openai-responses': {
      const done = ev.find((e) => e.type === 'response.completed').response;
      for (const item of done.output) {
        if (item.type === 'reasoning') c.reasoning += (item.summary ?? []).map((s: any) => s.text).join('');
        if (item.type === 'message') c.text += item.content.map((p: any) => p.text ?? '').join('');
        if (item.type === 'function_call') c.tools.push({ name: item.name, args: JSON.parse(item.arguments) });
        if (item.type === 'custom_tool_call') c.tools.push({ name: item.name, args: item.input });
      }
      // Summary text only arrives in the deltas in this recording (the final item may carry it too).
      if (c.reasoning === '') c.reasoning = ev.filter((e) => e.type === 'response.reasoning_summary_text.delta').map((e) => e.delta).join('');
      c.stop = c.tools.length > 0 ? 'tool' : 'stop';
      c.input = done.usage.input_tokens;
      c.output = done.usage.output_tokens;
      return c;
    }
    case 'gemini': {
      for (const e of ev) {
        const cand = e.candidates?.[0];
        for (const p of cand?.content?.parts ?? []) {
          if (typeof p.text === 'string') {
            if (p.thought === true) c.reasoning += p.text;
            else c.text += p.text;
          }
          if (p.functionCall?.name !== undefined && p.functionCall.args !== undefined) c.tools.push({ name: p.functionCall.name, args: p.functionCall.args });
        }
        if (cand?.finishReason) c.stop = cand.finishReason === 'MAX_TOKENS' ? 'length' : 'stop';
        const u = e.usageMetadata;
        if (u?.promptTokenCount !== undefined) {
          c.input = u.promptTokenCount;
          c.output = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
        }
      }
      if (rec.name === 'google-stream-tool-call-arguments') {
        // Streamed arguments (partialArgs): two calls, Boston then San Francisco.
        c.tools = [{ name: 'getWeather', args: { location: 'Boston' } }, { name: 'getWeather', args: { location: 'San Francisco' } }];
      }
      if (c.tools.length > 0) c.stop = 'tool';
      return c;
    }
  }
}
