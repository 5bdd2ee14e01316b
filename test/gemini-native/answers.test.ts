import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { replyAsAsked, replyFor, type Answer, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { booked } from './gemini-support.js';

/**
 * What the @google/genai SDK reads back from each upstream style, whole and streamed: response.text,
 * response.functionCalls (names, args, ids), usageMetadata (consistent totals, thoughts, cached tokens),
 * modelVersion (the model asked for), responseId, finishReason; a chat session whose function call and
 * functionResponse round-trip their id to the upstream; and each request booked exactly.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const converted: WireStyle[] = ['openai-chat', 'openai-responses', 'anthropic'];
const all: WireStyle[] = [...converted, 'gemini'];

function usageConsistent(u: any) {
  expect(u.totalTokenCount).toBe(u.promptTokenCount + u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0));
}

describe('whole answers through models.generateContent', () => {
  for (const up of all) {
    it(`${up} upstream: text, usage, modelVersion, responseId, finishReason; charged by the formula`, async () => {
      const usage = up === 'anthropic' ? { input: 120, cacheRead: 40, cacheWrite: 10, output: 25 } : { input: 120, cacheRead: 40, output: 25, reasoning: up === 'openai-chat' || up === 'gemini' || up === 'openai-responses' ? 5 : 0 };
      fixture.primary[up].enqueue(replyAsAsked(up, { text: 'Bonjour tout le monde', usage }));
      const { result, row, charged } = await booked(fixture, () => fixture.sdk.gemini.models.generateContent({ model: modelOf[up], contents: 'Say hello in French' }));
      const response = result!;
      expect(response.text).toBe('Bonjour tout le monde');
      expect(response.candidates?.[0]?.finishReason).toBe('STOP');
      // A Gemini channel's answer is relayed as sent (its own modelVersion); a converted one names the model asked for.
      expect(response.modelVersion).toBe(up === 'gemini' ? 'gemini-2.5-flash' : modelOf[up]);
      expect(typeof response.responseId).toBe('string');
      expect(response.responseId).not.toBe('');
      const u = response.usageMetadata as any;
      usageConsistent(u);
      expect(u.promptTokenCount).toBe(120);
      expect(u.cachedContentTokenCount).toBe(40);
      expect(u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0)).toBe(25);
      expect(charged).toBe(expectedCharge(usage));
      expect(row.usage_source).toBe('upstream');
    });
  }
});

describe('streamed answers through models.generateContentStream', () => {
  for (const up of all) {
    it(`${up} upstream: chunks join to the text; the last chunk has finishReason and the final usage`, async () => {
      const usage = { input: 50, output: 12 };
      fixture.primary[up].enqueue(replyAsAsked(up, { text: 'One two three four five', usage }));
      const { result, charged } = await booked(fixture, async () => {
        const chunks: any[] = [];
        for await (const chunk of await fixture.sdk.gemini.models.generateContentStream({ model: modelOf[up], contents: 'Count' })) chunks.push(chunk);
        return chunks;
      });
      const chunks = result!;
      expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe('One two three four five');
      const last = chunks.at(-1);
      expect(last.candidates[0].finishReason).toBe('STOP');
      expect(last.usageMetadata).toMatchObject({ promptTokenCount: 50, totalTokenCount: 62 });
      // Converted streams echo the model asked for; a Gemini alt=sse stream is relayed as the upstream sent it.
      for (const chunk of chunks) expect(chunk.modelVersion).toBe(up === 'gemini' ? 'gemini-2.5-flash' : modelOf[up]);
      expect(new Set(chunks.map((chunk) => chunk.responseId)).size).toBe(1);
      expect(charged).toBe(expectedCharge(usage));
    });
  }
});

describe('function calls read by response.functionCalls', () => {
  for (const up of all) {
    for (const stream of [false, true]) {
      it(`${up} upstream (${stream ? 'stream' : 'whole'}): two calls, names, args and ids`, async () => {
        const answer: Answer = {
          tools: [
            { id: 'call_a1', name: 'get_weather', args: '{"city":"Paris"}' },
            { id: 'call_b2', name: 'get_time', args: '{"tz":"Europe/Paris"}' },
          ],
          stop: 'tool',
          geminiCallIds: true,
          usage: { input: 30, output: 20 },
        };
        fixture.primary[up].enqueue((request) => replyFor(up, answer, request.body?.stream === true));
        const params = {
          model: modelOf[up],
          contents: 'Weather and time in Paris?',
          config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }, { name: 'get_time', parametersJsonSchema: { type: 'object', properties: { tz: { type: 'string' } } } }] }] },
        };
        let calls: any[] = [];
        let finish: string | undefined;
        if (stream) {
          for await (const chunk of await fixture.sdk.gemini.models.generateContentStream(params)) {
            calls.push(...(chunk.functionCalls ?? []));
            finish = chunk.candidates?.[0]?.finishReason ?? finish;
          }
        } else {
          const response = await fixture.sdk.gemini.models.generateContent(params);
          calls = response.functionCalls ?? [];
          finish = response.candidates?.[0]?.finishReason;
        }
        expect(calls).toEqual([
          { id: 'call_a1', name: 'get_weather', args: { city: 'Paris' } },
          { id: 'call_b2', name: 'get_time', args: { tz: 'Europe/Paris' } },
        ]);
        expect(finish).toBe('STOP');
      });
    }
  }
});

describe('chats.create(): a function call and its functionResponse round-trip the call id', () => {
  for (const up of converted) {
    for (const stream of [false, true]) {
      it(`${up} upstream (${stream ? 'sendMessageStream' : 'sendMessage'})`, async () => {
        const tools = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }];
        fixture.primary[up].enqueue((request) => replyFor(up, { tools: [{ id: 'call_zz9', name: 'get_weather', args: '{"city":"Rome"}' }], stop: 'tool', usage: { input: 10, output: 5 } }, request.body?.stream === true));
        fixture.primary[up].enqueue((request) => replyFor(up, { text: 'Sunny in Rome.', usage: { input: 30, output: 5 } }, request.body?.stream === true));
        const chat = fixture.sdk.gemini.chats.create({ model: modelOf[up], config: { tools } });
        const turn = async (message: any): Promise<{ text: string; calls: any[] }> => {
          if (!stream) {
            const response = await chat.sendMessage({ message });
            return { text: response.text ?? '', calls: response.functionCalls ?? [] };
          }
          let text = '';
          const calls: any[] = [];
          for await (const chunk of await chat.sendMessageStream({ message })) {
            text += chunk.text ?? '';
            calls.push(...(chunk.functionCalls ?? []));
          }
          return { text, calls };
        };
        const first = await turn('Weather in Rome?');
        expect(first.calls).toEqual([{ id: 'call_zz9', name: 'get_weather', args: { city: 'Rome' } }]);
        const second = await turn([{ functionResponse: { id: 'call_zz9', name: 'get_weather', response: { output: 'sunny, 24C' } } }]);
        expect(second.text).toBe('Sunny in Rome.');
        const sent = fixture.primary[up].requests.at(-1)!.body;
        switch (up) {
          case 'openai-chat':
            expect(sent.messages.slice(-2)).toEqual([
              { role: 'assistant', content: null, tool_calls: [{ id: 'call_zz9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
              { role: 'tool', tool_call_id: 'call_zz9', content: 'sunny, 24C' },
            ]);
            break;
          case 'openai-responses':
            expect(sent.input.slice(-2)).toMatchObject([
              { type: 'function_call', call_id: 'call_zz9', name: 'get_weather', arguments: '{"city":"Rome"}' },
              { type: 'function_call_output', call_id: 'call_zz9', output: 'sunny, 24C' },
            ]);
            break;
          case 'anthropic':
            expect(sent.messages.slice(-2)).toMatchObject([
              { role: 'assistant', content: [{ type: 'tool_use', id: 'call_zz9', name: 'get_weather', input: { city: 'Rome' } }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_zz9' }] },
            ]);
            break;
        }
      });
    }
  }
});
