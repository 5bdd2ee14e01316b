/**
 * The real recorded provider streams (../shared/reference/recorded) replayed byte for byte
 * through the gateway — same style (pass-through bytes), every converted client style through its official
 * SDK (accumulated content vs the recording), raw event order per vendor, and the log row's usage.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';
import { callerKey, modelOf, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';
import { contentOf, recordings, replyOf, wirePieces, wireText, type Content, type Recording } from './recorded.js';

const recs = recordings();
const styles: WireStyle[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'];

const toolDecls = (c: Content) => [...new Set(c.tools.map((t) => t.name)), 'spare_tool'].map((name) => ({ name, description: `tool ${name}`, parameters: { type: 'object', properties: { location: { type: 'string' } } } }));

function request(style: WireStyle, rec: Recording): { path: string; headers: Record<string, string>; body: any } {
  const model = modelOf[rec.style];
  const tools = toolDecls(contentOf(rec));
  switch (style) {
    case 'openai-chat':
      return { path: '/v1/chat/completions', headers: {}, body: { model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }], tools: tools.map((t) => ({ type: 'function', function: t })) } };
    case 'openai-responses':
      return { path: '/v1/responses', headers: {}, body: { model, stream: true, input: 'hi', reasoning: { effort: 'low', summary: 'auto' }, tools: tools.map((t) => ({ type: 'function', ...t, strict: false })) } };
    case 'anthropic':
      return { path: '/v1/messages', headers: { 'anthropic-version': '2023-06-01' }, body: { model, stream: true, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hi' }], tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })) } };
    case 'gemini':
      return { path: `/v1beta/models/${model}:streamGenerateContent?alt=sse`, headers: {}, body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { includeThoughts: true } }, tools: [{ functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }] } };
  }
}

async function rawFetch(fixture: CrossStyleFixture, style: WireStyle, rec: Recording): Promise<Response> {
  const r = request(style, rec);
  return fetch(`${fixture.gateway.url}${r.path}`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'x-goog-api-key': callerKey, 'content-type': 'application/json', ...r.headers }, body: JSON.stringify(r.body) });
}

function parseSse(text: string): { event?: string; data: any }[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const event = /^event: ?(.*)$/m.exec(block)?.[1];
      const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? '';
      return { event, data: data === '[DONE]' ? '[DONE]' : JSON.parse(data) };
    });
}

// ---------- what each SDK accumulates ----------
interface Seen { text: string; reasoning: string; tools: { name: string; args: unknown }[]; stop: string | undefined; input: number; output: number }

async function viaSdk(fixture: CrossStyleFixture, style: WireStyle, rec: Recording): Promise<Seen> {
  const { body } = request(style, rec);
  switch (style) {
    case 'openai-chat': {
      const { stream: _s, ...rest } = body;
      const s = fixture.openai.chat.completions.stream(rest);
      let reasoning = '';
      for await (const chunk of s) for (const ch of chunk.choices) reasoning += (ch.delta as any).reasoning_content ?? '';
      const final = await s.finalChatCompletion();
      const m = final.choices[0]!.message;
      return {
        text: m.content ?? '',
        reasoning,
        tools: (m.tool_calls ?? []).map((c: any) => ({ name: c.function.name, args: c.function.arguments === '' ? {} : JSON.parse(c.function.arguments) })),
        stop: final.choices[0]!.finish_reason,
        input: final.usage?.prompt_tokens ?? -1,
        output: final.usage?.completion_tokens ?? -1,
      };
    }
    case 'anthropic': {
      const { stream: _s, ...rest } = body;
      const m: any = await fixture.anthropic.messages.stream(rest).finalMessage();
      return {
        text: m.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(''),
        reasoning: m.content.filter((b: any) => b.type === 'thinking').map((b: any) => b.thinking).join(''),
        tools: m.content.filter((b: any) => b.type === 'tool_use').map((b: any) => ({ name: b.name, args: b.input })),
        stop: m.stop_reason,
        input: m.usage.input_tokens + (m.usage.cache_read_input_tokens ?? 0) + (m.usage.cache_creation_input_tokens ?? 0),
        output: m.usage.output_tokens,
      };
    }
    case 'openai-responses': {
      const { stream: _s, ...rest } = body;
      const r: any = await fixture.openai.responses.stream(rest).finalResponse();
      return {
        text: r.output_text,
        reasoning: r.output.filter((i: any) => i.type === 'reasoning').map((i: any) => (i.summary ?? []).map((s: any) => s.text).join('')).join(''),
        tools: r.output.filter((i: any) => i.type === 'function_call' || i.type === 'custom_tool_call').map((i: any) => ({ name: i.name, args: i.type === 'custom_tool_call' ? i.input : JSON.parse(i.arguments) })),
        stop: r.status + (r.incomplete_details?.reason ? `:${r.incomplete_details.reason}` : ''),
        input: r.usage?.input_tokens ?? -1,
        output: r.usage?.output_tokens ?? -1,
      };
    }
    case 'gemini': {
      const chunks: any[] = [];
      const model = modelOf[rec.style];
      for await (const chunk of await fixture.gemini.models.generateContentStream({ model, contents: body.contents, config: { thinkingConfig: { includeThoughts: true }, tools: body.tools } })) chunks.push(chunk);
      const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
      const u = chunks.at(-1)?.usageMetadata ?? {};
      return {
        text: parts.filter((p) => typeof p.text === 'string' && p.thought !== true).map((p) => p.text).join(''),
        reasoning: parts.filter((p) => p.thought === true).map((p) => p.text ?? '').join(''),
        tools: parts.filter((p) => p.functionCall !== undefined).map((p) => ({ name: p.functionCall.name, args: p.functionCall.args })),
        stop: chunks.map((c) => c.candidates?.[0]?.finishReason).filter((r) => r !== undefined).at(-1),
        input: u.promptTokenCount ?? -1,
        output: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0),
      };
    }
  }
}

const stopFor: Record<WireStyle, Record<Content['stop'], string>> = {
  'openai-chat': { stop: 'stop', tool: 'tool_calls', length: 'length', refusal: 'content_filter' },
  anthropic: { stop: 'end_turn', tool: 'tool_use', length: 'max_tokens', refusal: 'refusal' },
  'openai-responses': { stop: 'completed', tool: 'completed', length: 'incomplete:max_output_tokens', refusal: 'incomplete:content_filter' },
  gemini: { stop: 'STOP', tool: 'STOP', length: 'MAX_TOKENS', refusal: 'SAFETY' },
};

// ---------- vendor event-order checks on the raw client stream ----------
function checkOrder(style: WireStyle, events: { event?: string; data: any }[], includeUsage: boolean): string[] {
  const problems: string[] = [];
  const need = (cond: boolean, what: string) => void (cond || problems.push(what));
  if (style === 'anthropic') {
    const types = events.map((e) => e.data.type);
    need(types[0] === 'message_start', `first is ${types[0]}`);
    need(types.at(-1) === 'message_stop', `last is ${types.at(-1)}`);
    need(types.at(-2) === 'message_delta', `second last is ${types.at(-2)}`);
    need(types.filter((t) => t === 'message_delta').length === 1, 'one message_delta');
    let open: number | undefined;
    let next = 0;
    for (const e of events) {
      need(e.event === e.data.type, `event name ${e.event} vs type ${e.data.type}`);
      if (e.data.type === 'content_block_start') {
        need(open === undefined, `block ${e.data.index} opened while ${open} open`);
        need(e.data.index === next, `block index ${e.data.index}, expected ${next}`);
        next++;
        open = e.data.index;
      } else if (e.data.type === 'content_block_delta') need(e.data.index === open, `delta for ${e.data.index} while ${open} open`);
      else if (e.data.type === 'content_block_stop') {
        need(e.data.index === open, `stop ${e.data.index} while ${open} open`);
        open = undefined;
      } else if (e.data.type === 'message_delta') need(open === undefined, 'message_delta with a block open');
    }
  } else if (style === 'openai-responses') {
    const types = events.map((e) => e.data.type);
    need(types[0] === 'response.created', `first ${types[0]}`);
    need(['response.completed', 'response.incomplete', 'response.failed'].includes(types.at(-1)), `last ${types.at(-1)}`);
    let last = -1;
    const items = new Map<number, { id: string; done: boolean }>();
    const parts = new Set<string>();
    for (const e of events) {
      need(e.event === e.data.type, `event name ${e.event} vs type ${e.data.type}`);
      const sn = e.data.sequence_number;
      need(typeof sn === 'number' && sn > last, `sequence_number ${sn} after ${last} (${e.data.type})`);
      if (typeof sn === 'number') last = sn;
      const t: string = e.data.type;
      if (t === 'response.output_item.added') {
        need(!items.has(e.data.output_index), `output_index ${e.data.output_index} added twice`);
        need(e.data.output_index === items.size, `output_index ${e.data.output_index}, expected ${items.size}`);
        items.set(e.data.output_index, { id: e.data.item.id, done: false });
      } else if (t === 'response.output_item.done') {
        const it = items.get(e.data.output_index);
        need(it !== undefined && !it.done && it.id === e.data.item.id, `output_item.done for ${e.data.output_index} not matching an open item`);
        if (it) it.done = true;
      } else if (t === 'response.content_part.added') parts.add(`${e.data.output_index}/${e.data.content_index}`);
      else if (t === 'response.content_part.done') need(parts.delete(`${e.data.output_index}/${e.data.content_index}`), `content_part.done without added ${e.data.output_index}/${e.data.content_index}`);
      else if (t.endsWith('.delta') && e.data.output_index !== undefined) {
        const it = items.get(e.data.output_index);
        need(it !== undefined && !it.done && (e.data.item_id === undefined || e.data.item_id === it.id), `${t} for closed/unknown item ${e.data.output_index}`);
      }
    }
    for (const [i, it] of items) need(it.done, `output item ${i} never done`);
    need(parts.size === 0, `content parts never done: ${[...parts].join(',')}`);
  } else if (style === 'openai-chat') {
    need(events.at(-1)?.data === '[DONE]', 'ends with [DONE]');
    const chunks = events.filter((e) => e.data !== '[DONE]').map((e) => e.data);
    need(chunks.filter((c) => c.choices?.length > 0)[0]?.choices[0].delta.role === 'assistant', 'role in first delta');
    const finishes = chunks.filter((c) => c.choices?.some((ch: any) => ch.finish_reason));
    need(finishes.length === 1, `${finishes.length} finish_reason chunks`);
    const usage = chunks.filter((c) => c.usage);
    if (includeUsage) {
      need(usage.length === 1, `${usage.length} usage chunks`);
      need(chunks.at(-1)?.usage !== undefined && chunks.at(-1)?.choices.length === 0, 'usage chunk last with empty choices');
    } else need(usage.length === 0, 'usage chunk without include_usage');
    need(new Set(chunks.map((c) => c.id)).size === 1, 'one id');
  } else {
    const chunks = events.map((e) => e.data);
    need(chunks.at(-1)?.candidates?.[0]?.finishReason !== undefined, 'finishReason on last chunk');
  }
  return problems;
}

describe('recorded provider streams through the gateway', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });
  beforeEach(async () => {
    await fixture.gateway.settled();
  });

  describe('pass-through: same-style client gets the upstream bytes', () => {
    it.each(recs.map((rec) => ({ name: rec.name, rec })))('$name', async ({ rec }) => {
      fixture.upstream.enqueue(replyOf(rec));
      const response = await rawFetch(fixture, rec.style, rec);
      expect(response.status).toBe(200);
      const text = (await response.text()).replace(/^: keep-alive\r?\n\r?\n/gm, '');
      const expected = contentOf(rec);
      const row = await fixture.lastLog();
      expect({ input: row.input_tokens, output: row.output_tokens, source: row.usage_source, error: row.error }).toEqual({ input: expected.input, output: expected.output, source: 'upstream', error: null });
      // Same events, same order, same payload bytes (framing aside).
      expect(parseSse(text).map((e) => [e.event, JSON.stringify(e.data)])).toEqual(parseSse(wireText(rec)).map((e) => [e.event, JSON.stringify(e.data)]));
      expect(text).toBe(wireText(rec));
    });
  });

  describe('pass-through: events reach the client before the upstream finishes', () => {
    it.each(recs.filter((r) => r.lines.length >= 4 && r.name !== 'anthropic-refusal').map((rec) => ({ name: rec.name, rec })))('$name', async ({ rec }) => {
      const pieces = wirePieces(rec);
      const half = pieces.slice(0, Math.ceil(pieces.length / 2));
      fixture.upstream.enqueue({ raw: half, ending: 'hang' });
      const controller = new AbortController();
      const r = request(rec.style, rec);
      const response = await fetch(`${fixture.gateway.url}${r.path}`, { method: 'POST', signal: controller.signal, headers: { authorization: `Bearer ${callerKey}`, 'x-goog-api-key': callerKey, 'content-type': 'application/json', ...r.headers }, body: JSON.stringify(r.body) });
      const reader = response.body!.getReader();
      let got = '';
      const want = half.join('');
      const deadline = Date.now() + 3000;
      while (parseSse(got).length < parseSse(want).length && Date.now() < deadline) {
        const next = await Promise.race([reader.read(), new Promise<null>((res) => setTimeout(() => res(null), deadline - Date.now()))]);
        if (next === null || next.done) break;
        got += new TextDecoder().decode(next.value);
      }
      controller.abort();
      // Events compared (Gemini's CRLF framing is checked by the byte test above).
      expect(parseSse(got).map((e) => [e.event, JSON.stringify(e.data)])).toEqual(parseSse(want).map((e) => [e.event, JSON.stringify(e.data)]));
    });
  });

  const converted = recs.flatMap((rec) => styles.filter((s) => s !== rec.style).map((client) => ({ name: `${rec.name}>${client}`, rec, client })));

  describe('converted: what the official SDK accumulates equals the recording', () => {
    it.each(converted)('$name', async ({ rec, client }) => {
      fixture.upstream.enqueue(replyOf(rec));
      const seen = await viaSdk(fixture, client, rec);
      const expected = contentOf(rec);
      const { stop: _stop, ...rest } = seen;
      // A custom tool's free-text input has no equivalent outside Responses: carried as {input}.
      const tools = rec.name === 'openai-custom-tool' ? expected.tools.map((t) => ({ name: t.name, args: { input: t.args } })) : expected.tools;
      expect(rest).toEqual({ text: expected.text, reasoning: expected.reasoning, tools, input: expected.input, output: expected.output });
      expect(seen.stop).toBe(stopFor[client][expected.stop]);
      const row = await fixture.lastLog();
      expect({ input: row.input_tokens, output: row.output_tokens, source: row.usage_source, error: row.error }).toEqual({ input: expected.input, output: expected.output, source: 'upstream', error: null });
    });
  });

  describe('converted: raw client events follow the vendor order', () => {
    it.each(converted)('$name', async ({ rec, client }) => {
      fixture.upstream.enqueue(replyOf(rec));
      const response = await rawFetch(fixture, client, rec);
      expect(response.status).toBe(200);
      const events = parseSse(await response.text());
      expect(checkOrder(client, events, true)).toEqual([]);
    });
  });

  describe('converted: events reach the client before the upstream finishes', () => {
    it.each(converted.filter(({ rec, client }) => rec.lines.length >= 6 && !(client === 'gemini' && contentOf(rec).text === '' && contentOf(rec).reasoning === '')))('$name', async ({ rec, client }) => {
      const pieces = wirePieces(rec);
      fixture.upstream.enqueue({ raw: pieces.slice(0, Math.ceil(pieces.length * 0.8)), ending: 'hang' });
      const controller = new AbortController();
      const r = request(client, rec);
      const response = await fetch(`${fixture.gateway.url}${r.path}`, { method: 'POST', signal: controller.signal, headers: { authorization: `Bearer ${callerKey}`, 'x-goog-api-key': callerKey, 'content-type': 'application/json', ...r.headers }, body: JSON.stringify(r.body) });
      const reader = response.body!.getReader();
      let got = '';
      // Until the first whole event (or 2 s: the upstream hangs, so nothing more is coming).
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline && !/\r?\n\r?\n/.test(got)) {
        const next = await Promise.race([reader.read(), new Promise<null>((res) => setTimeout(() => res(null), deadline - Date.now()))]);
        if (next === null || next.done) break;
        got += new TextDecoder().decode(next.value);
      }
      controller.abort();
      // Something arrived while the upstream is still open (a Gemini client gets a call only once its arguments are whole).
      const events = parseSse(got);
      const toolOnly = contentOf(rec).text === '' && contentOf(rec).reasoning === '';
      if (!(client === 'gemini' && toolOnly)) expect(events.length).toBeGreaterThan(0);
    });
  });
});
