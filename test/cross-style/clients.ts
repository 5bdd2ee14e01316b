/** Builds each client style's request from one conversation and normalizes what each official SDK hands back. */
import type { ToolCall, WireStyle } from '../fakes/scripted-vendor-wire.js';
import type { CrossStyleFixture } from './harness.js';

export type ClientStyle = WireStyle;

export interface Tool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}
export type Image = { kind: 'url'; url: string } | { kind: 'base64'; mediaType: string; data: string };
export type Msg =
  | { role: 'user'; text?: string; images?: Image[] }
  | { role: 'assistant'; text?: string; tools?: ToolCall[] }
  | { role: 'tool'; results: { id: string; name: string; content: string; isError?: boolean }[] };

export interface Conv {
  model: string;
  system?: string[];
  tools?: Tool[];
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
  maxTokens?: number;
  stop?: string[];
  messages: Msg[];
}

export interface Observed {
  text: string;
  reasoning: string;
  tools: { id: string; name: string; args: unknown }[];
  stop: string | undefined;
  usage: Record<string, unknown>;
  raw: any;
}

export const weatherTool: Tool = { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } }, required: ['location'] } };
export const timeTool: Tool = { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] } };

// ---------- request builders ----------
export function chatBody(conv: Conv): any {
  const messages: any[] = (conv.system ?? []).map((text) => ({ role: 'system', content: text }));
  for (const m of conv.messages) {
    if (m.role === 'user') {
      if (m.images === undefined) messages.push({ role: 'user', content: m.text ?? '' });
      else messages.push({ role: 'user', content: [...(m.text === undefined ? [] : [{ type: 'text', text: m.text }]), ...m.images.map((img) => ({ type: 'image_url', image_url: { url: img.kind === 'url' ? img.url : `data:${img.mediaType};base64,${img.data}` } }))] });
    } else if (m.role === 'assistant') {
      messages.push({ role: 'assistant', content: m.text ?? null, ...(m.tools === undefined ? {} : { tool_calls: m.tools.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.args } })) }) });
    } else for (const r of m.results) messages.push({ role: 'tool', tool_call_id: r.id, content: r.content });
  }
  const body: any = { model: conv.model, messages };
  if (conv.tools !== undefined) body.tools = conv.tools.map((t) => ({ type: 'function', function: t }));
  if (conv.toolChoice !== undefined) body.tool_choice = typeof conv.toolChoice === 'string' ? conv.toolChoice : { type: 'function', function: { name: conv.toolChoice.name } };
  if (conv.maxTokens !== undefined) body.max_tokens = conv.maxTokens;
  if (conv.stop !== undefined) body.stop = conv.stop;
  return body;
}

export function anthropicBody(conv: Conv): any {
  const messages: any[] = [];
  for (const m of conv.messages) {
    if (m.role === 'user') {
      const content: any[] = [...(m.images ?? []).map((img) => ({ type: 'image', source: img.kind === 'url' ? { type: 'url', url: img.url } : { type: 'base64', media_type: img.mediaType, data: img.data } })), ...(m.text === undefined ? [] : [{ type: 'text', text: m.text }])];
      const last = messages.at(-1);
      if (last?.role === 'user') last.content.push(...content);
      else messages.push({ role: 'user', content });
    } else if (m.role === 'assistant') {
      messages.push({ role: 'assistant', content: [...(m.text === undefined ? [] : [{ type: 'text', text: m.text }]), ...(m.tools ?? []).map((t) => ({ type: 'tool_use', id: t.id, name: t.name, input: JSON.parse(t.args) }))] });
    } else messages.push({ role: 'user', content: m.results.map((r) => ({ type: 'tool_result', tool_use_id: r.id, content: r.content, ...(r.isError === true ? { is_error: true } : {}) })) });
  }
  const body: any = { model: conv.model, max_tokens: conv.maxTokens ?? 512, messages };
  if (conv.system !== undefined) body.system = conv.system.length === 1 ? conv.system[0] : conv.system.map((text) => ({ type: 'text', text }));
  if (conv.tools !== undefined) body.tools = conv.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  if (conv.toolChoice !== undefined) body.tool_choice = conv.toolChoice === 'required' ? { type: 'any' } : typeof conv.toolChoice === 'string' ? { type: conv.toolChoice } : { type: 'tool', name: conv.toolChoice.name };
  if (conv.stop !== undefined) body.stop_sequences = conv.stop;
  return body;
}

export function responsesBody(conv: Conv): any {
  const input: any[] = [];
  const [first, ...others] = conv.system ?? [];
  for (const text of others) input.push({ role: 'developer', content: text });
  for (const m of conv.messages) {
    if (m.role === 'user') {
      input.push({ role: 'user', content: [...(m.text === undefined ? [] : [{ type: 'input_text', text: m.text }]), ...(m.images ?? []).map((img) => ({ type: 'input_image', detail: 'auto', image_url: img.kind === 'url' ? img.url : `data:${img.mediaType};base64,${img.data}` }))] });
    } else if (m.role === 'assistant') {
      if (m.text !== undefined) input.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: m.text, annotations: [] }] });
      for (const t of m.tools ?? []) input.push({ type: 'function_call', call_id: t.id, name: t.name, arguments: t.args });
    } else for (const r of m.results) input.push({ type: 'function_call_output', call_id: r.id, output: r.content });
  }
  const body: any = { model: conv.model, input };
  if (first !== undefined) body.instructions = first;
  if (conv.tools !== undefined) body.tools = conv.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }));
  if (conv.toolChoice !== undefined) body.tool_choice = typeof conv.toolChoice === 'string' ? conv.toolChoice : { type: 'function', name: conv.toolChoice.name };
  if (conv.maxTokens !== undefined) body.max_output_tokens = conv.maxTokens;
  return body;
}

export function geminiParams(conv: Conv, withIds = true): any {
  const contents: any[] = [];
  for (const m of conv.messages) {
    if (m.role === 'user') {
      const parts: any[] = [...(m.text === undefined ? [] : [{ text: m.text }]), ...(m.images ?? []).map((img) => (img.kind === 'url' ? { fileData: { mimeType: 'image/png', fileUri: img.url } } : { inlineData: { mimeType: img.mediaType, data: img.data } }))];
      contents.push({ role: 'user', parts });
    } else if (m.role === 'assistant') {
      contents.push({ role: 'model', parts: [...(m.text === undefined ? [] : [{ text: m.text }]), ...(m.tools ?? []).map((t) => ({ functionCall: { ...(withIds ? { id: t.id } : {}), name: t.name, args: JSON.parse(t.args) } }))] });
    } else {
      contents.push({ role: 'user', parts: m.results.map((r) => ({ functionResponse: { ...(withIds ? { id: r.id } : {}), name: r.name, response: r.isError === true ? { error: r.content } : { output: r.content } } })) });
    }
  }
  const config: any = {};
  if (conv.system !== undefined) config.systemInstruction = { parts: conv.system.map((text) => ({ text })) };
  if (conv.tools !== undefined) config.tools = [{ functionDeclarations: conv.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }];
  if (conv.toolChoice !== undefined) {
    config.toolConfig = {
      functionCallingConfig:
        conv.toolChoice === 'auto' ? { mode: 'AUTO' } : conv.toolChoice === 'none' ? { mode: 'NONE' } : conv.toolChoice === 'required' ? { mode: 'ANY' } : { mode: 'ANY', allowedFunctionNames: [conv.toolChoice.name] },
    };
  }
  if (conv.maxTokens !== undefined) config.maxOutputTokens = conv.maxTokens;
  if (conv.stop !== undefined) config.stopSequences = conv.stop;
  return { model: conv.model, contents, config };
}

// ---------- sending and normalizing ----------
export async function send(fixture: CrossStyleFixture, style: ClientStyle, conv: Conv, stream: boolean): Promise<Observed> {
  switch (style) {
    case 'openai-chat': {
      const body = chatBody(conv);
      const completion = stream
        ? await fixture.openai.chat.completions.stream({ ...body, stream_options: { include_usage: true } }).finalChatCompletion()
        : await fixture.openai.chat.completions.create(body);
      const choice = completion.choices[0]!;
      return {
        text: choice.message.content ?? '',
        reasoning: (choice.message as any).reasoning_content ?? '',
        tools: (choice.message.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) })),
        stop: choice.finish_reason,
        usage: (completion.usage ?? {}) as any,
        raw: completion,
      };
    }
    case 'anthropic': {
      const body = anthropicBody(conv);
      const message = stream ? await fixture.anthropic.messages.stream(body).finalMessage() : await fixture.anthropic.messages.create(body);
      return {
        text: message.content.map((b: any) => (b.type === 'text' ? b.text : '')).join(''),
        reasoning: message.content.map((b: any) => (b.type === 'thinking' ? b.thinking : '')).join(''),
        tools: message.content.filter((b: any) => b.type === 'tool_use').map((b: any) => ({ id: b.id, name: b.name, args: b.input })),
        stop: message.stop_reason ?? undefined,
        usage: message.usage as any,
        raw: message,
      };
    }
    case 'openai-responses': {
      const body = responsesBody(conv);
      const response = stream ? await fixture.openai.responses.stream(body).finalResponse() : await fixture.openai.responses.create(body);
      return {
        text: response.output_text,
        reasoning: response.output.map((item: any) => (item.type === 'reasoning' ? item.summary.map((s: any) => s.text).join('') : '')).join(''),
        tools: response.output.filter((item: any) => item.type === 'function_call').map((item: any) => ({ id: item.call_id, name: item.name, args: JSON.parse(item.arguments) })),
        stop: response.status + (response.incomplete_details?.reason ? `:${response.incomplete_details.reason}` : ''),
        usage: response.usage as any,
        raw: response,
      };
    }
    case 'gemini': {
      const params = geminiParams(conv);
      if (!stream) {
        const response = await fixture.gemini.models.generateContent(params);
        const parts: any[] = response.candidates?.[0]?.content?.parts ?? [];
        return {
          text: parts.filter((p) => p.text !== undefined && p.thought !== true).map((p) => p.text).join(''),
          reasoning: parts.filter((p) => p.thought === true).map((p) => p.text ?? '').join(''),
          tools: parts.filter((p) => p.functionCall !== undefined).map((p) => ({ id: p.functionCall.id, name: p.functionCall.name, args: p.functionCall.args })),
          stop: response.candidates?.[0]?.finishReason,
          usage: (response.usageMetadata ?? {}) as any,
          raw: response,
        };
      }
      const chunks: any[] = [];
      for await (const chunk of await fixture.gemini.models.generateContentStream(params)) chunks.push(chunk);
      const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
      return {
        text: parts.filter((p) => p.text !== undefined && p.thought !== true).map((p) => p.text).join(''),
        reasoning: parts.filter((p) => p.thought === true).map((p) => p.text ?? '').join(''),
        tools: parts.filter((p) => p.functionCall !== undefined).map((p) => ({ id: p.functionCall.id, name: p.functionCall.name, args: p.functionCall.args })),
        stop: chunks.map((c) => c.candidates?.[0]?.finishReason).filter((r) => r !== undefined).at(-1),
        usage: (chunks.at(-1)?.usageMetadata ?? {}) as any,
        raw: chunks,
      };
    }
  }
}
