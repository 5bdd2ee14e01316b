/**
 * Type-confusion sweep of the text relay routes: Chat Completions, Responses, Messages and
 * Gemini generateContent / streamGenerateContent, each to a same-style and to converted channels, plus the
 * legacy completions, embeddings, moderations, rerank and compact routes. Every field path of a valid body
 * (type-confusion-cases.ts) takes each hostile value; the bar (checkCase): never a 500 or a hang, the route's
 * error envelope, no quota moved on a refusal, the gateway stays up.
 */
import { keys, models, startBadInputFixture } from './bad-input-fixture.js';
import { casesOf, PNG, sweep, type RouteUnderTest } from './type-confusion-cases.js';

const dataUrl = `data:image/png;base64,${PNG}`;
const params = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };

const chat = (model: string, stream: boolean): Record<string, unknown> => ({
  model,
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: dataUrl, detail: 'low' } }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":"b"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
  ],
  tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: params } }],
  tool_choice: 'auto',
  max_tokens: 16,
  temperature: 0.5,
  stop: ['zz'],
  response_format: { type: 'json_schema', json_schema: { name: 's', schema: params } },
  stream,
  ...(stream ? { stream_options: { include_usage: true } } : {}),
});

const responses = (model: string, stream: boolean): Record<string, unknown> => ({
  model,
  instructions: 'be brief',
  input: [
    { role: 'user', content: [{ type: 'input_text', text: 'hi' }, { type: 'input_image', image_url: dataUrl }] },
    { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":"b"}' },
    { type: 'function_call_output', call_id: 'c1', output: 'ok' },
  ],
  tools: [{ type: 'function', name: 'f', description: 'd', parameters: params }],
  tool_choice: 'auto',
  max_output_tokens: 16,
  reasoning: { effort: 'low' },
  text: { format: { type: 'text' } },
  stream,
});

const messages = (model: string, stream: boolean): Record<string, unknown> => ({
  model,
  max_tokens: 2048,
  system: [{ type: 'text', text: 'be brief' }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 'b' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'ok' }] }] },
  ],
  tools: [{ name: 'f', description: 'd', input_schema: params }],
  tool_choice: { type: 'auto' },
  thinking: { type: 'enabled', budget_tokens: 1024 },
  stop_sequences: ['zz'],
  metadata: { user_id: 'u1' },
  stream,
});

const gemini: Record<string, unknown> = {
  contents: [
    { role: 'user', parts: [{ text: 'hi' }, { inlineData: { mimeType: 'image/png', data: PNG } }] },
    { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 'b' } } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] },
  ],
  systemInstruction: { parts: [{ text: 'be brief' }] },
  tools: [{ functionDeclarations: [{ name: 'f', description: 'd', parameters: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } }] }],
  toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
  generationConfig: { maxOutputTokens: 16, temperature: 0.5, stopSequences: ['zz'], thinkingConfig: { thinkingBudget: 0, includeThoughts: false } },
  safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
};

const chatExtra = ['n', 'logprobs', 'top_logprobs', 'seed', 'user', 'parallel_tool_calls', 'modalities', 'audio', 'audio.voice', 'prediction', 'prediction.content', 'web_search_options', 'web_search_options.search_context_size', 'reasoning_effort', 'service_tier', 'metadata', 'store', 'logit_bias', 'frequency_penalty', 'presence_penalty', 'top_p', 'max_completion_tokens', 'stream_options', 'stream_options.include_usage', 'functions', 'function_call', 'verbosity', 'extra_body', 'thinking', 'thinking.budget_tokens', 'reasoning', 'reasoning.max_tokens'];
const responsesExtra = ['previous_response_id', 'include', 'truncation', 'background', 'prompt', 'prompt.id', 'conversation', 'store', 'parallel_tool_calls', 'max_tool_calls', 'top_logprobs', 'temperature', 'top_p', 'metadata', 'user', 'service_tier', 'prompt_cache_key', 'safety_identifier', 'stream_options', 'text.verbosity', 'text.format.schema', 'reasoning.summary', 'reasoning.max_tokens'];
const messagesExtra = ['temperature', 'top_p', 'top_k', 'service_tier', 'container', 'mcp_servers', 'context_management', 'output_format', 'output_config', 'output_config.effort', 'inference_geo'];
const geminiExtra = ['cachedContent', 'labels', 'generationConfig.responseSchema', 'generationConfig.responseJsonSchema', 'generationConfig.responseMimeType', 'generationConfig.responseModalities', 'generationConfig.candidateCount', 'generationConfig.speechConfig', 'generationConfig.imageConfig', 'generationConfig.imageConfig.imageSize', 'generationConfig.mediaResolution', 'generationConfig.topK', 'generationConfig.topP', 'generationConfig.seed', 'generationConfig.thinkingConfig.thinkingLevel', 'generationConfig.responseLogprobs', 'generationConfig.logprobs', 'generationConfig.maxOutputTokens', 'generationConfig.frequencyPenalty', 'system_instruction', 'tools.0.googleSearch'];

const targets = [models.chat, models.claude, models.gemini] as const;
const short = (model: string) => (model === models.chat ? 'openai' : model === models.claude ? 'anthropic' : 'gemini');

const routes: RouteUnderTest[] = [];
for (const model of targets) {
  for (const stream of [false, true]) {
    const s = stream ? ' stream' : '';
    routes.push(
      { label: `chat→${short(model)}${s}`, path: '/v1/chat/completions', style: 'openai', body: chat(model, stream), extra: chatExtra },
      { label: `responses→${short(model)}${s}`, path: '/v1/responses', style: 'openai', body: responses(model, stream), extra: responsesExtra },
      { label: `messages→${short(model)}${s}`, path: '/v1/messages', style: 'anthropic', body: messages(model, stream), extra: messagesExtra },
      { label: `gemini→${short(model)}${s}`, path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, style: 'gemini', body: gemini, extra: geminiExtra },
    );
  }
}
routes.push(
  { label: 'completions', path: '/v1/completions', style: 'openai', body: { model: models.instruct, prompt: ['hi', 'there'], max_tokens: 16, stop: ['zz'], logit_bias: { '50256': -100 }, n: 1 }, extra: ['echo', 'best_of', 'logprobs', 'suffix', 'stream', 'stream_options', 'seed', 'user', 'temperature'] },
  { label: 'embeddings', path: '/v1/embeddings', style: 'openai', body: { model: models.embedding, input: ['a', 'b'], dimensions: 8, encoding_format: 'float' }, extra: ['user', 'input_type', 'task'] },
  { label: 'moderations', path: '/v1/moderations', style: 'openai', body: { model: models.moderation, input: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: dataUrl } }] } },
  { label: 'rerank', path: '/v1/rerank', style: 'openai', body: { model: models.rerank, query: 'q', documents: ['a', { text: 'b' }], top_n: 1, return_documents: true }, extra: ['max_chunks_per_doc', 'rank_fields'] },
  { label: 'compact', path: '/v1/responses/compact', style: 'openai', body: { model: models.chat, input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], instructions: 'x' } },
);

/**
 * The suite's share of the sweep (its every run): the values that confuse a type most — absent, a number
 * out of every range, a string, an object, a list of nothing. `FUZZ_VALUES=all` sends all twelve (22,560
 * cases, ~2.5 min), as the audit that wrote this sweep did; `FUZZ_ONLY=<text>` keeps the cases naming it (type-confusion-cases.ts `sweep`).
 */
const suiteValues = ['null', '1e308', '"x"', '{}', '[null]'];
const cases = casesOf(routes, process.env.FUZZ_VALUES === 'all' ? undefined : suiteValues);

sweep('text relay routes: every field path × every hostile value', cases, startBadInputFixture, keys.good);
