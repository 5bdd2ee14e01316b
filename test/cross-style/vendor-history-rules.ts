/**
 * The rules each vendor enforces on a tool history, checked on a request body the gateway sends upstream;
 * each returns the violations (empty when the vendor would take the request). From the toolturns audit.
 *
 * - Anthropic: the first message is a user turn; every `tool_use` is answered first in the next user turn
 *   and every `tool_result` answers one; ids match `^[a-zA-Z0-9_-]+$` and are unique in the history; thinking blocks carry signatures;
 *   no text block is empty, a message's (or the system's) text is not all whitespace, and a final assistant
 *   turn (a prefill) does not end in whitespace;
 *   with thinking on, no forced tool choice, `max_tokens` above the budget, and the assistant turn whose
 *   calls the request answers starts with `thinking` / `redacted_thinking`.
 * - Gemini: roles user / model; a model turn's function calls are answered by as many function responses
 *   of the same names (and ids) in the next turn; on Gemini 3, the first call of each step of the current
 *   turn carries a thought signature.
 * - OpenAI Chat: tool calls (ids of at most 40 characters, JSON-object arguments) answered by tool messages
 *   right after them, and no tool message without its call.
 * - OpenAI Responses: `function_call` arguments are JSON objects, each output follows its call, and a call
 *   made after reasoning comes back right after that reasoning item with its `encrypted_content`
 *   (`emittedReasoning`: call id → the encrypted content the upstream gave with it).
 *
 * And the tool declarations each takes (the fakes in test/fakes refuse the same, with the vendors' words):
 * Chat refuses an empty `tools` or `tool_calls` array, and `tool_choice` / `parallel_tool_calls` without
 * tools; Responses takes `tools: []` but not a `required` or named function choice with no such function;
 * Anthropic takes `tools: []` but no `tool_choice` beside it; Gemini takes `tools: []` but not a tool
 * entry declaring nothing, nor a function-calling config without function declarations.
 */

const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);
const validJsonObject = (text: unknown): boolean => {
  if (typeof text !== 'string') return false;
  try {
    return isObj(JSON.parse(text));
  } catch {
    return false;
  }
};

export function validateAnthropic(body: any): string[] {
  const errors: string[] = [];
  const messages: any[] = body.messages ?? [];
  if (messages[0]?.role !== 'user') errors.push('anthropic: first message must be user');
  if (body.tool_choice != null && !(Array.isArray(body.tools) && body.tools.length > 0)) errors.push('anthropic: tool_choice may only be specified while providing tools');
  const thinking = body.thinking?.type === 'enabled';
  if (thinking && body.tool_choice !== undefined && !['auto', 'none'].includes(body.tool_choice.type)) errors.push(`anthropic: tool_choice ${body.tool_choice.type} with thinking`);
  if (thinking && !(body.max_tokens > body.thinking.budget_tokens)) errors.push('anthropic: max_tokens must exceed budget_tokens');
  const useIds = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []).filter((b: any) => b.type === 'tool_use').map((b: any) => b.id));
  if (new Set(useIds).size !== useIds.length) errors.push(`anthropic: \`tool_use\` ids must be unique (${useIds.join(',')})`);
  const system: any[] = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  errors.push(...blankTextErrors('system', system));
  messages.forEach((m, i) => {
    const blocks: any[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (i > 0 && messages[i - 1].role === m.role && m.role === 'assistant') errors.push(`anthropic: two assistant messages in a row at ${i}`);
    errors.push(...blankTextErrors(`messages.${i}`, blocks));
    const lastBlock = blocks.at(-1);
    if (i === messages.length - 1 && m.role === 'assistant' && lastBlock?.type === 'text' && lastBlock.text !== lastBlock.text.trimEnd()) errors.push('anthropic: final assistant content cannot end with trailing whitespace');
    for (const b of blocks) {
      if (b.type === 'tool_use') {
        if (!/^[a-zA-Z0-9_-]+$/.test(b.id)) errors.push(`anthropic: tool_use id ${b.id} does not match the pattern`);
        if (!isObj(b.input)) errors.push(`anthropic: tool_use ${b.id} input not an object`);
      }
      if ((b.type === 'thinking') && (typeof b.signature !== 'string' || b.signature === '')) errors.push(`anthropic: thinking block without signature at ${i}`);
    }
    if (m.role === 'assistant') {
      const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id);
      if (uses.length > 0) {
        const next = messages[i + 1];
        if (next === undefined) return;
        const nextBlocks: any[] = typeof next.content === 'string' ? [] : next.content;
        const leading: string[] = [];
        for (const b of nextBlocks) {
          if (b.type !== 'tool_result') break;
          leading.push(b.tool_use_id);
        }
        if (next.role !== 'user' || [...leading].sort().join() !== [...uses].sort().join()) {
          errors.push(`anthropic: tool_use ids ${uses.join(',')} not answered first in the next user message (got ${leading.join(',')})`);
        }
        // Extended thinking: an assistant turn with tool_use in the current tool loop starts with its thinking block.
        if (thinking && i === messages.length - 2 && !['thinking', 'redacted_thinking'].includes(blocks[0]?.type)) {
          errors.push(`anthropic: with thinking on, the final assistant turn must start with a thinking block (found ${blocks[0]?.type})`);
        }
      }
    }
    if (m.role === 'user') {
      const results = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
      if (results.length > 0) {
        const prev = messages[i - 1];
        const prevUses = prev?.role === 'assistant' && Array.isArray(prev.content) ? prev.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id) : [];
        for (const id of results) if (!prevUses.includes(id)) errors.push(`anthropic: tool_result ${id} has no tool_use in the previous message`);
      }
    }
  });
  return errors;
}

/** Anthropic's two refusals of blank text: any empty block, and text blocks that hold only whitespace between them. */
function blankTextErrors(path: string, blocks: any[]): string[] {
  const texts = blocks.filter((b) => b.type === 'text');
  if (texts.some((b) => b.text === '')) return [`anthropic: ${path}: text content blocks must be non-empty`];
  if (texts.length > 0 && texts.every((b) => b.text.trim() === '')) return [`anthropic: ${path}: text content blocks must contain non-whitespace text`];
  return [];
}

export function validateGemini(body: any, path: string): string[] {
  const errors: string[] = [];
  const contents: any[] = body.contents ?? [];
  const gemini3 = /gemini-3/.test(path);
  const tools: any[] = Array.isArray(body.tools) ? body.tools : [];
  const declares = (tool: any) => Array.isArray(tool?.functionDeclarations) && tool.functionDeclarations.length > 0;
  if (tools.some((tool) => !isObj(tool) || Object.keys(tool).every((key) => key === 'functionDeclarations' && !declares(tool)))) errors.push('gemini: a tools entry declares nothing');
  if (body.toolConfig?.functionCallingConfig !== undefined && !tools.some(declares)) errors.push('gemini: Function calling config is set without function_declarations');
  // The current turn starts after the last user content with a text part.
  let currentTurnStart = 0;
  contents.forEach((c, i) => {
    if (c.role === 'user' && (c.parts ?? []).some((p: any) => typeof p.text === 'string')) currentTurnStart = i;
  });
  contents.forEach((c, i) => {
    if (c.role !== 'user' && c.role !== 'model') errors.push(`gemini: role ${c.role}`);
    const calls = (c.parts ?? []).filter((p: any) => p.functionCall !== undefined);
    if (c.role === 'model' && calls.length > 0) {
      const next = contents[i + 1];
      if (next === undefined) return;
      const responses = (next.parts ?? []).filter((p: any) => p.functionResponse !== undefined);
      if (next.role !== 'user' || responses.length !== calls.length) errors.push(`gemini: ${calls.length} function calls answered by ${responses.length} function responses`);
      const names = (xs: any[], key: string) => xs.map((p) => p[key].name).sort().join();
      if (names(calls, 'functionCall') !== names(responses, 'functionResponse')) errors.push(`gemini: function response names ${names(responses, 'functionResponse')} != call names ${names(calls, 'functionCall')}`);
      for (const call of calls) {
        if (!isObj(call.functionCall.args) && call.functionCall.args !== undefined) errors.push('gemini: functionCall.args not an object');
        if (call.functionCall.id !== undefined && !responses.some((r: any) => r.functionResponse.id === call.functionCall.id)) errors.push(`gemini: call id ${call.functionCall.id} unanswered`);
      }
      for (const r of responses) if (!isObj(r.functionResponse.response)) errors.push('gemini: functionResponse.response not an object');
      if (gemini3 && i > currentTurnStart && calls[0].thoughtSignature === undefined) errors.push(`gemini 3: first functionCall of step ${i} has no thoughtSignature`);
    }
  });
  return errors;
}

export function validateChat(body: any): string[] {
  const errors: string[] = [];
  const messages: any[] = body.messages ?? [];
  if (Array.isArray(body.tools) && body.tools.length === 0) errors.push("chat: Invalid 'tools': empty array");
  if (body.tools == null) for (const field of ['tool_choice', 'parallel_tool_calls']) if (body[field] != null) errors.push(`chat: '${field}' is only allowed when 'tools' are specified`);
  messages.forEach((m, i) => {
    if (Array.isArray(m.tool_calls) && m.tool_calls.length === 0) errors.push(`chat: Invalid 'messages[${i}].tool_calls': empty array`);
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      const ids = m.tool_calls.map((c: any) => c.id);
      for (const c of m.tool_calls) {
        if (typeof c.id !== 'string' || c.id.length > 40) errors.push(`chat: tool call id ${c.id} invalid`);
        if (!validJsonObject(c.function?.arguments)) errors.push(`chat: tool call ${c.id} arguments not JSON: ${c.function?.arguments}`);
      }
      const answered: string[] = [];
      for (let j = i + 1; j < messages.length && messages[j].role === 'tool'; j++) answered.push(messages[j].tool_call_id);
      if ([...answered].sort().join() !== [...ids].sort().join()) errors.push(`chat: tool_calls ${ids.join(',')} answered by ${answered.join(',')}`);
    }
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j].role === 'tool') j--;
      const owner = messages[j];
      if (owner?.role !== 'assistant' || !(owner.tool_calls ?? []).some((c: any) => c.id === m.tool_call_id)) errors.push(`chat: tool message ${m.tool_call_id} does not follow its tool_calls`);
    }
  });
  return errors;
}

export function validateResponses(body: any, emittedReasoning: Map<string, string>): string[] {
  const errors: string[] = [];
  const input: any[] = Array.isArray(body.input) ? body.input : [];
  const functions: any[] = (Array.isArray(body.tools) ? body.tools : []).filter((tool: any) => tool?.type === 'function');
  if (body.tool_choice === 'required' && !(Array.isArray(body.tools) && body.tools.length > 0)) errors.push("responses: Tool choice 'required' must be specified with 'tools' parameter");
  if (body.tool_choice?.type === 'function' && !functions.some((tool) => tool.name === body.tool_choice.name)) errors.push("responses: Tool choice 'function' not found in 'tools' parameter");
  const seen = new Set<string>();
  input.forEach((item, i) => {
    if (item.type === 'function_call') {
      seen.add(item.call_id);
      if (!validJsonObject(item.arguments)) errors.push(`responses: function_call ${item.call_id} arguments not JSON: ${item.arguments}`);
      // A call made after reasoning must come back with that reasoning item (encrypted when store=false).
      const needs = emittedReasoning.get(item.call_id);
      if (needs !== undefined) {
        let j = i - 1;
        while (j >= 0 && input[j].type === 'function_call') j--;
        if (input[j]?.type !== 'reasoning' || input[j].encrypted_content !== needs) errors.push(`responses: function_call ${item.call_id} provided without its reasoning item`);
      }
    }
    if (item.type === 'function_call_output' && !seen.has(item.call_id)) errors.push(`responses: function_call_output ${item.call_id} has no earlier function_call`);
    if (item.type === 'reasoning' && body.store === false && typeof item.encrypted_content !== 'string') errors.push('responses: reasoning item without encrypted_content under store=false');
  });
  return errors;
}

/**
 * Signature verification (the cross-vendor signature audit): each vendor verifies the opaque reasoning a
 * history hands back and refuses what it did not issue. `issued` holds what this (fake) vendor gave out.
 * - Anthropic: every `thinking.signature` and `redacted_thinking.data` ("Invalid `signature` in `thinking` block").
 * - Gemini: every `thoughtSignature` but Google's documented stand-ins ("Corrupted thought signature.").
 * - OpenAI Responses: every reasoning item's `encrypted_content` ("The encrypted content … could not be verified.").
 */
const geminiStandIns = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

export function verifyAnthropicSignatures(body: any, issued: ReadonlySet<string>): string[] {
  const errors: string[] = [];
  (body.messages ?? []).forEach((m: any, i: number) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((b: any, j: number) => {
      if (b.type === 'thinking' && !issued.has(b.signature)) errors.push(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block (${b.signature})`);
      if (b.type === 'redacted_thinking' && !issued.has(b.data)) errors.push(`messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block (${b.data})`);
    });
  });
  return errors;
}

export function verifyGeminiSignatures(body: any, issued: ReadonlySet<string>): string[] {
  const errors: string[] = [];
  (body.contents ?? []).forEach((c: any, i: number) => {
    (c.parts ?? []).forEach((p: any, j: number) => {
      if (p.thoughtSignature !== undefined && !geminiStandIns.has(p.thoughtSignature) && !issued.has(p.thoughtSignature)) errors.push(`contents[${i}].parts[${j}]: Corrupted thought signature (${p.thoughtSignature})`);
    });
  });
  return errors;
}

export function verifyResponsesEncryptedContent(body: any, issued: ReadonlySet<string>): string[] {
  const errors: string[] = [];
  (Array.isArray(body.input) ? body.input : []).forEach((item: any, i: number) => {
    if (item.type === 'reasoning' && item.encrypted_content != null && !issued.has(item.encrypted_content)) errors.push(`input[${i}]: The encrypted content for the reasoning item could not be verified (${item.encrypted_content})`);
  });
  return errors;
}
