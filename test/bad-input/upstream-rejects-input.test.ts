import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, models, send, startBadInputFixture, withoutCharge, type BadInputFixture, type Style } from './bad-input-fixture.js';

const J = JSON.stringify;

/**
 * Input the gateway lets through but the upstream refuses with 400: the client gets a 400 in its own
 * envelope with the upstream's message, nothing is charged, no reservation stays open, and the 400 is
 * not retried (exactly one upstream request).
 */
describe('an upstream 400 for bad input reaches the client in its own envelope, uncharged and not retried', () => {
  let fixture: BadInputFixture;
  beforeAll(async () => {
    fixture = await startBadInputFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const openaiError = { error: { message: "Invalid value for 'temperature'", type: 'invalid_request_error', param: 'temperature', code: null } };
  const anthropicError = { type: 'error', error: { type: 'invalid_request_error', message: 'temperature: out of range' } };
  const geminiError = { error: { code: 400, message: 'temperature out of range', status: 'INVALID_ARGUMENT' } };

  it.each<{ name: string; path: string; body: string; upstream: 'openai' | 'anthropic' | 'gemini'; style: Style }>([
    { name: 'chat → OpenAI channel', path: '/v1/chat/completions', body: J({ model: models.chat, messages: [{ role: 'user', content: 'hi' }], temperature: 9 }), upstream: 'openai', style: 'openai' },
    { name: 'chat → Anthropic channel', path: '/v1/chat/completions', body: J({ model: models.claude, messages: [{ role: 'user', content: 'hi' }], temperature: 9 }), upstream: 'anthropic', style: 'openai' },
    { name: 'messages → Anthropic channel', path: '/v1/messages', body: J({ model: models.claude, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 }), upstream: 'anthropic', style: 'anthropic' },
    { name: 'messages → OpenAI channel', path: '/v1/messages', body: J({ model: models.chat, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 }), upstream: 'openai', style: 'anthropic' },
    { name: 'messages (stream) → Gemini channel', path: '/v1/messages', body: J({ model: models.gemini, max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 }), upstream: 'gemini', style: 'anthropic' },
    { name: 'gemini → Gemini channel', path: `/v1beta/models/${models.gemini}:generateContent`, body: J({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { temperature: 9 } }), upstream: 'gemini', style: 'gemini' },
    { name: 'gemini (stream) → Anthropic channel', path: `/v1beta/models/${models.claude}:streamGenerateContent?alt=sse`, body: J({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { temperature: 9 } }), upstream: 'anthropic', style: 'gemini' },
    { name: 'responses → OpenAI channel', path: '/v1/responses', body: J({ model: models.chat, input: 'hi', temperature: 9 }), upstream: 'openai', style: 'openai' },
    { name: 'embeddings → OpenAI channel', path: '/v1/embeddings', body: J({ model: models.embedding, input: 'hi', dimensions: -1 }), upstream: 'openai', style: 'openai' },
  ])('$name → 400 in the $style envelope', async ({ path, body, upstream, style }) => {
    const errorBody = upstream === 'openai' ? openaiError : upstream === 'anthropic' ? anthropicError : geminiError;
    fixture[upstream].enqueueFault({ kind: 'status', status: 400, body: errorBody });
    const sent = await withoutCharge(fixture, () => send(fixture, path, { body }), 1);
    expect(sent.status).toBe(400);
    expect(expectEnvelope(sent, style)).toContain('temperature');
  });
});
