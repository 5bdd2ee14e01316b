import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type, type FunctionDeclaration, type GenerateContentResponse } from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from './fake-gemini-upstream.js';
import { readBodyPieces } from './read-body-pieces.js';

let fake: FakeGeminiUpstream;
let ai: GoogleGenAI;

beforeEach(async () => {
  fake = await startFakeGeminiUpstream();
  ai = new GoogleGenAI({ apiKey: 'AIza-test-key', httpOptions: { baseUrl: fake.url } });
});

afterEach(async () => {
  await fake.close();
});

const model = 'gemini-2.5-flash';
const hi = [{ role: 'user', parts: [{ text: 'Hi' }] }];
const weatherFunction: FunctionDeclaration = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: Type.OBJECT, properties: { location: { type: Type.STRING } }, required: ['location'] },
};

function postGemini(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': 'AIza-test-key' }): Promise<Response> {
  return fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** Test assertions walk arbitrary JSON bodies. */
const readJson = (response: Response): Promise<any> => response.json();

/** The data payloads of a whole Gemini SSE body, checking Google's framing: `data: {…}\r\n\r\n`, no [DONE]. */
function sseDataOf(text: string): string[] {
  expect(text.endsWith('\r\n\r\n')).toBe(true);
  const events = text.slice(0, -4).split('\r\n\r\n');
  for (const event of events) expect(event).toMatch(/^data: \{[^\r\n]+\}$/);
  return events.map((event) => event.slice('data: '.length));
}

describe('fake Gemini upstream: generateContent', () => {
  it('answers models.generateContent with a response the SDK parses, and records the request', async () => {
    const response = await ai.models.generateContent({ model, contents: 'Hi' });
    expect(response.text).toBe('Hello from the fake upstream!');
    expect(response.candidates).toEqual([{ content: { parts: [{ text: 'Hello from the fake upstream!' }], role: 'model' }, finishReason: 'STOP', index: 0 }]);
    expect(response.usageMetadata).toEqual({ promptTokenCount: 17, candidatesTokenCount: 9, totalTokenCount: 26, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 17 }] });
    expect(response.modelVersion).toBe(model);
    expect(response.responseId).toMatch(/^[A-Za-z0-9_-]{23}$/);

    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: `/v1beta/models/${model}:generateContent`, body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] } });
    expect(fake.requests[0]!.headers['x-goog-api-key']).toBe('AIza-test-key');
  });

  it('pretty-prints a whole body as Google does, in the recorded key order', async () => {
    const response = await postGemini(`/v1beta/models/${model}:generateContent`, { contents: hi });
    expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    const text = await response.text();
    expect(text).toMatch(/^\{\n {2}"candidates": \[\n {4}\{\n {6}"content": \{\n {8}"parts": \[\n {10}\{\n {12}"text": "Hello from the fake upstream!"\n {10}\}\n {8}\],\n {8}"role": "model"\n {6}\},\n {6}"finishReason": "STOP",\n {6}"index": 0\n/);
    expect(Object.keys(JSON.parse(text))).toEqual(['candidates', 'usageMetadata', 'modelVersion', 'responseId']);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('escapes <, > and & inside strings as Google does', async () => {
    fake.setOptions({ reply: 'if x < 1 && y > 2' });
    const text = await (await postGemini(`/v1beta/models/${model}:generateContent`, { contents: hi })).text();
    expect(text).toContain('"text": "if x \\u003c 1 \\u0026\\u0026 y \\u003e 2"');
    expect(JSON.parse(text).candidates[0].content.parts[0].text).toBe('if x < 1 && y > 2');
  });

  it('reports cached tokens as cachedContentTokenCount with cacheTokensDetails', async () => {
    fake.setOptions({ cachedTokens: 10 });
    const response = await ai.models.generateContent({ model, contents: 'Hi' });
    expect(response.usageMetadata).toEqual({
      promptTokenCount: 17, candidatesTokenCount: 9, totalTokenCount: 26, cachedContentTokenCount: 10,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 17 }], cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 10 }],
    });
  });

  it('truncates to maxOutputTokens words with finishReason MAX_TOKENS, streamed or not', async () => {
    const cut = await ai.models.generateContent({ model, contents: 'Hi', config: { maxOutputTokens: 2 } });
    expect(cut.text).toBe('Hello from');
    expect(cut.candidates![0]!.finishReason).toBe('MAX_TOKENS');
    expect(cut.usageMetadata?.candidatesTokenCount).toBe(2);

    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Hi', config: { maxOutputTokens: 3 } })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe('Hello from the');
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('MAX_TOKENS');
  });

  it('puts a thought part first and the thoughtSignature on the first answer part, with thoughtsTokenCount', async () => {
    fake.setOptions({ thinking: true });
    const response = await ai.models.generateContent({ model, contents: 'Hi', config: { thinkingConfig: { includeThoughts: true } } });
    const parts = response.candidates![0]!.content!.parts!;
    expect(parts).toEqual([
      { text: expect.stringMatching(/\S/), thought: true },
      { text: 'Hello from the fake upstream!', thoughtSignature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) },
    ]);
    expect(response.text).toBe('Hello from the fake upstream!');
    expect(response.usageMetadata).toMatchObject({ candidatesTokenCount: 9, thoughtsTokenCount: 12, totalTokenCount: 17 + 9 + 12 });
    expect(Object.keys(response.usageMetadata!).at(-1)).toBe('thoughtsTokenCount');
  });
});

describe('fake Gemini upstream: streamGenerateContent', () => {
  it('streams to the SDK (alt=sse): text across chunks, cumulative usage on each, finishReason on the last', async () => {
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Hi' })) chunks.push(chunk);
    expect(chunks).toHaveLength(5);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe('Hello from the fake upstream!');
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates![0]!.finishReason === undefined)).toBe(true);
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    const counts = chunks.map((chunk) => chunk.usageMetadata!.candidatesTokenCount!);
    expect(counts.at(-1)).toBe(9);
    expect(counts).toEqual([...counts].sort((left, right) => left - right));
    expect(chunks.every((chunk) => chunk.usageMetadata!.promptTokenCount === 17 && chunk.responseId === chunks[0]!.responseId)).toBe(true);
    expect(fake.requests[0]!.path).toBe(`/v1beta/models/${model}:streamGenerateContent?alt=sse`);
  });

  it('frames SSE as Google does: data lines ending in \\r\\n\\r\\n, a space after each colon, no [DONE]', async () => {
    const response = await postGemini(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, { contents: hi });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = sseDataOf(await response.text());
    expect(events).toHaveLength(5);
    expect(events[0]).toMatch(/^\{"candidates": \[\{"content": \{"parts": \[\{"text": "[^"]+"\}\],"role": "model"\},"index": 0\}\],"usageMetadata": \{"promptTokenCount": 17,"candidatesTokenCount": \d+,"totalTokenCount": \d+,"promptTokensDetails": \[\{"modality": "TEXT","tokenCount": 17\}\]\},"modelVersion": "gemini-2.5-flash","responseId": "[^"]+"\}$/);
    expect(events.at(-1)).toContain('"finishReason": "STOP","index": 0}]');
    expect(events.map((data) => JSON.parse(data).candidates[0].content.parts[0].text).join('')).toBe('Hello from the fake upstream!');
  });

  it('streams a JSON array without alt=sse, element by element, holding the same responses', async () => {
    fake.setOptions({ chunkDelayMs: 5 });
    const response = await postGemini(`/v1beta/models/${model}:streamGenerateContent`, { contents: hi });
    expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    const { pieces } = await readBodyPieces(response);
    const text = pieces.map((piece) => piece.text).join('');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces[0]!.text).toMatch(/^\[\{\n {2}"candidates": \[/);
    expect(text).toMatch(/\}\r\n,\r\n\{\n {2}"candidates"/);
    expect(text.endsWith('}\r\n]')).toBe(true);
    const elements = JSON.parse(text);
    expect(elements).toHaveLength(5);

    fake.setOptions({ chunkDelayMs: 0 });
    const viaSse = sseDataOf(await (await postGemini(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, { contents: hi })).text()).map((data) => JSON.parse(data));
    const withoutIds = (responses: any[]) => responses.map(({ responseId: _id, ...rest }) => rest);
    expect(withoutIds(elements)).toEqual(withoutIds(viaSse));
  });

  it('streams thoughts first and the signature on an empty text part of the closing chunk, as Gemini 3 does', async () => {
    fake.setOptions({ thinking: true });
    const events = sseDataOf(await (await postGemini(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, { contents: hi, generationConfig: { thinkingConfig: { includeThoughts: true } } })).text()).map((data) => JSON.parse(data));
    const parts = events.map((event) => event.candidates[0].content.parts[0]);
    expect(parts[0]).toEqual({ text: expect.any(String), thought: true });
    expect(parts.filter((part) => part.thought === true).length).toBe(2);
    expect(parts.filter((part) => part.thought !== true && part.thoughtSignature === undefined).map((part) => part.text).join('')).toBe('Hello from the fake upstream!');
    expect(parts.at(-1)).toEqual({ text: '', thoughtSignature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) });
    expect(events.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(events.slice(0, -1).every((event) => event.candidates[0].finishReason === undefined)).toBe(true);
    expect(events.every((event) => event.usageMetadata.thoughtsTokenCount === 12)).toBe(true);
    expect(events.at(-1).usageMetadata).toMatchObject({ candidatesTokenCount: 9, totalTokenCount: 38 });

    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Hi', config: { thinkingConfig: { includeThoughts: true } } })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe('Hello from the fake upstream!');
  });
});

describe('fake Gemini upstream: function calls', () => {
  it('answers a function call the SDK reads, and text once the last content is a functionResponse', async () => {
    const call = await ai.models.generateContent({ model, contents: 'Weather in Paris?', config: { tools: [{ functionDeclarations: [weatherFunction] }] } });
    expect(call.functionCalls).toEqual([{ name: 'get_weather', args: { location: 'Paris' } }]);
    expect(call.candidates![0]).toMatchObject({ finishReason: 'STOP', index: 0 });
    expect(call.candidates![0]!.content!.parts).toEqual([{ functionCall: { name: 'get_weather', args: { location: 'Paris' } } }]);
    // The SDK drops finishMessage; the wire carries it as recorded (google-tool-call.json).
    const raw = await readJson(await postGemini(`/v1beta/models/${model}:generateContent`, { contents: hi, tools: [{ functionDeclarations: [weatherFunction] }] }));
    expect(raw.candidates[0]).toEqual({ content: { parts: [{ functionCall: { name: 'get_weather', args: { location: 'Paris' } } }], role: 'model' }, finishReason: 'STOP', index: 0, finishMessage: 'Model generated function call(s).' });

    const answer = await ai.models.generateContent({
      model,
      config: { tools: [{ functionDeclarations: [weatherFunction] }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        call.candidates![0]!.content!,
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { sky: 'clear' } } }] },
      ],
    });
    expect(answer.functionCalls).toBeUndefined();
    expect(answer.text).toBe('Hello from the fake upstream!');
  });

  it('streams a function call whole in one chunk, then an empty text chunk with STOP, as recorded', async () => {
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Weather?', config: { tools: [{ functionDeclarations: [weatherFunction] }] } })) chunks.push(chunk);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]!.functionCalls).toEqual([{ name: 'get_weather', args: { location: 'Paris' } }]);
    expect(chunks[1]!.candidates![0]).toMatchObject({ content: { parts: [{ text: '' }] }, finishReason: 'STOP' });

    fake.setOptions({ thinking: true });
    const events = sseDataOf(await (await postGemini(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, { contents: hi, tools: [{ functionDeclarations: [weatherFunction] }] })).text()).map((data) => JSON.parse(data));
    const call = events.find((event) => event.candidates[0].content.parts[0].functionCall !== undefined);
    expect(call.candidates[0].content.parts[0]).toEqual({ functionCall: { name: 'get_weather', args: { location: 'Paris' } }, thoughtSignature: expect.any(String) });
  });

  it('honours functionCallingConfig: allowedFunctionNames picks the function, mode NONE gets text', async () => {
    const timeFunction: FunctionDeclaration = { name: 'get_time', parameters: { type: Type.OBJECT, properties: { zone: { type: Type.STRING, enum: ['UTC', 'CET'] } } } };
    const tools = [{ functionDeclarations: [weatherFunction, timeFunction] }];
    const allowed = await ai.models.generateContent({ model, contents: 'Time?', config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_time'] } } } });
    expect(allowed.functionCalls).toEqual([{ name: 'get_time', args: { zone: 'UTC' } }]);
    const none = await ai.models.generateContent({ model, contents: 'Time?', config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } } } });
    expect(none.text).toBe('Hello from the fake upstream!');
  });
});

describe('fake Gemini upstream: keys and request errors', () => {
  it('answers a wrong key with 400 INVALID_ARGUMENT / API_KEY_INVALID, whether in the header or ?key=', async () => {
    fake.setOptions({ expectedKeys: ['AIza-good'] });
    const error = await ai.models.generateContent({ model, contents: 'Hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain('API_KEY_INVALID');

    const wrong = await postGemini(`/v1beta/models/${model}:generateContent?key=AIza-bad`, { contents: hi }, {});
    expect(wrong.status).toBe(400);
    expect(await readJson(wrong)).toEqual({
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
          { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
        ],
      },
    });

    const missing = await postGemini(`/v1beta/models/${model}:generateContent`, { contents: hi }, {});
    expect(missing.status).toBe(403);
    expect((await readJson(missing)).error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message: expect.stringMatching(/^Method doesn't allow unregistered callers/) });

    expect((await postGemini(`/v1beta/models/${model}:generateContent?key=AIza-good`, { contents: hi }, {})).status).toBe(200);
    const viaSdk = await new GoogleGenAI({ apiKey: 'AIza-good', httpOptions: { baseUrl: fake.url } }).models.generateContent({ model, contents: 'Hi' });
    expect(viaSdk.text).toBe('Hello from the fake upstream!');
  });

  it('answers an unknown path with 404 NOT_FOUND, and a body without contents or not JSON with 400 INVALID_ARGUMENT', async () => {
    const unknown = await postGemini(`/v1beta/models/${model}:countTokensLater`, { contents: hi });
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });

    const noContents = await postGemini(`/v1beta/models/${model}:generateContent`, { generationConfig: {} });
    expect(noContents.status).toBe(400);
    expect((await readJson(noContents)).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('contents') });

    const notJson = await postGemini(`/v1beta/models/${model}:generateContent`, '{not json');
    expect(notJson.status).toBe(400);
    expect(fake.requests.at(-1)!.body).toBe('{not json');
  });
});

describe('fake Gemini upstream: faults', () => {
  const ssePath = `/v1beta/models/${model}:streamGenerateContent?alt=sse`;

  it('answers the next request only with a queued status fault, in Google\'s error shape, keeping its headers and body', async () => {
    fake.enqueueFault({ kind: 'status', status: 429, headers: { 'retry-after': '2' } });
    fake.enqueueFault({ kind: 'status', status: 503 });
    fake.enqueueFault({ kind: 'status', status: 500, body: { error: { code: 500, message: 'custom', status: 'INTERNAL' } } });

    const limited = await postGemini(ssePath, { contents: hi });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await readJson(limited)).toEqual({ error: { code: 429, message: expect.any(String), status: 'RESOURCE_EXHAUSTED' } });

    const unavailable = await ai.models.generateContent({ model, contents: 'Hi' }).catch((caught: unknown) => caught);
    expect(unavailable).toBeInstanceOf(ApiError);
    expect((unavailable as ApiError).status).toBe(503);
    expect((unavailable as ApiError).message).toContain('UNAVAILABLE');

    const failed = await postGemini(ssePath, { contents: hi });
    expect((await readJson(failed)).error.message).toBe('custom');

    const healthy = await postGemini(ssePath, { contents: hi });
    expect(healthy.status).toBe(200);
    await healthy.text();
    expect(fake.requests).toHaveLength(4);
  });

  it('resets the connection before any header, after recording the request', async () => {
    fake.enqueueFault({ kind: 'reset-before-headers' });
    await expect(postGemini(ssePath, { contents: hi })).rejects.toThrow();
    expect(fake.requests[0]!.body).toEqual({ contents: hi });
  });

  it('cuts an SSE stream right after its first event, and a JSON array after its first element', async () => {
    fake.enqueueFault({ kind: 'cut-after-first-chunk' });
    const sse = await readBodyPieces(await postGemini(ssePath, { contents: hi }));
    expect(sse.error).toBeDefined();
    expect(sse.pieces.map((piece) => piece.text).join('')).toMatch(/^data: \{[^\r\n]*\}\r\n\r\n$/);

    fake.enqueueFault({ kind: 'cut-after-first-chunk' });
    const array = await readBodyPieces(await postGemini(`/v1beta/models/${model}:streamGenerateContent`, { contents: hi }));
    expect(array.error).toBeDefined();
    const received = array.pieces.map((piece) => piece.text).join('');
    expect(received.startsWith('[{')).toBe(true);
    expect(received).not.toContain('\r\n,\r\n');
  });

  it('cuts a JSON body halfway', async () => {
    fake.enqueueFault({ kind: 'cut-after-first-chunk' });
    const response = await postGemini(`/v1beta/models/${model}:generateContent`, { contents: hi });
    await expect(response.text()).rejects.toThrow();
  });

  it('waits before sending headers on slow-first-byte', async () => {
    fake.enqueueFault({ kind: 'slow-first-byte', delayMs: 150 });
    const started = performance.now();
    const response = await postGemini(ssePath, { contents: hi });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(sseDataOf(await response.text())).toHaveLength(5);
  });

  it('stalls after the first event, then finishes the stream', async () => {
    fake.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 200 });
    const { pieces, error } = await readBodyPieces(await postGemini(ssePath, { contents: hi }));
    expect(error).toBeUndefined();
    expect(pieces[0]!.text).toMatch(/^data: \{"candidates"/);
    const secondAt = pieces.find((piece, index) => index > 0)!.at;
    expect(secondAt - pieces[0]!.at).toBeGreaterThanOrEqual(180);
    expect(sseDataOf(pieces.map((piece) => piece.text).join(''))).toHaveLength(5);
  });

  it('spaces events by chunkDelayMs', async () => {
    fake.setOptions({ chunkDelayMs: 20 });
    const started = performance.now();
    sseDataOf(await (await postGemini(ssePath, { contents: hi })).text());
    expect(performance.now() - started).toBeGreaterThanOrEqual(4 * 20 - 10); // 5 events, 4 gaps
  });

  it('closes promptly while a stream is stalled, and close() may be called again', async () => {
    fake.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 60_000 });
    const reading = readBodyPieces(await postGemini(ssePath, { contents: hi }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await fake.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await reading).error).toBeDefined();
  });
});
