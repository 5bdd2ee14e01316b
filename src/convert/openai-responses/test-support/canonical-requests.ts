import type { CanonicalRequest } from '../../../canonical/canonical-request.js';

const weatherTool = {
  name: 'get_weather',
  description: 'Get the current weather in a location.',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};
const timeTool = { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } };

/** Representative canonical requests, as another style's parser would produce them. */
export const canonicalRequests: Record<string, CanonicalRequest> = {
  text: {
    model: 'client-model',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello!' }] }],
    tools: [],
    stream: true,
  },
  'system-prompt': {
    model: 'client-model',
    system: [{ type: 'text', text: 'You are a terse assistant. Answer in French.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the capital of Italy?' }] }],
    tools: [],
    maxOutputTokens: 256,
    temperature: 0.2,
    topP: 0.9,
    user: 'user-1234',
    stream: false,
  },
  'image-input': {
    model: 'client-model',
    system: [],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these images, and what does the PDF say?' },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/boardwalk.jpg' }, detail: 'high' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' } },
          { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0xLjQKJSVFT0YK' }, mediaType: 'application/pdf', filename: 'note.pdf' },
        ],
      },
    ],
    tools: [],
    stream: false,
  },
  'tool-call-round-trip': {
    model: 'client-model',
    system: [],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"location":"Paris"}' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', content: [{ type: 'text', text: '18°C, cloudy' }] }] },
    ],
    tools: [weatherTool],
    toolChoice: { type: 'tool', name: 'get_weather' },
    parallelToolCalls: false,
    stream: false,
  },
  'parallel-tool-calls': {
    model: 'client-model',
    system: [],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and the time in CET?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"location":"Paris"}' },
          { type: 'tool-call', id: 'call_b', name: 'get_time', arguments: '{"zone":"CET"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_a',
            name: 'get_weather',
            content: [
              { type: 'text', text: '18°C, cloudy' },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/radar.png' } },
            ],
          },
          { type: 'tool-result', toolCallId: 'call_b', name: 'get_time', content: [{ type: 'text', text: '14:05' }] },
        ],
      },
    ],
    tools: [weatherTool, timeTool],
    toolChoice: { type: 'required' },
    stream: true,
  },
  'thinking-with-signature': {
    model: 'client-model',
    system: [],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'What is 2+2?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'The user asks for 2+2. That is 4.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
          { type: 'text', text: '2 + 2 = 4.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And 3+3?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: '**Adding two numbers**\n\nThe user asks for 3+3.', redactedData: 'gAAAAABo5LKjDoneTokenMn8b3Vc5Xz7Lk9Jh1Gf3Ds5Aq7Wp9Eo2Ri4', issuer: 'openai' },
          { type: 'text', text: '6.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
    ],
    tools: [],
    reasoning: { effort: 'high', includeThoughts: true },
    stream: true,
  },
  'unsupported-settings': {
    model: 'client-model',
    system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Use JSON.' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'List two colours.' }] },
    ],
    tools: [],
    maxOutputTokens: 8,
    topK: 40,
    stopSequences: ['\n\n'],
    seed: 7,
    presencePenalty: 0.5,
    frequencyPenalty: 0.5,
    responseFormat: { type: 'json_schema', schema: { type: 'object', properties: { colours: { type: 'array', items: { type: 'string' } } } } },
    reasoning: { budgetTokens: 10000, includeThoughts: true },
    stream: false,
  },
};
