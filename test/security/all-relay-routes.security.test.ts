/**
 * From the auth audit: the shared relay security suite (relay-security-suite.ts) on every relay route it
 * did not cover yet — Messages (and its count_tokens), Responses (and a stored response's routes), Conversations, Completions, Images, Videos, Gemini
 * native — in each style's envelope, with every way its key can be sent.
 */
import { runRelaySecuritySuite } from '../security/relay-security-suite.js';
import { startSecurityGateway } from '../security/start-security-gateway.js';

const gw = () => startSecurityGateway();
const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hello' }] });
const gemini = () => ({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });

runRelaySecuritySuite({ name: 'messages', method: 'POST', path: '/v1/messages', style: 'anthropic', body: (model) => ({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] }) }, gw);
runRelaySecuritySuite({ name: 'messages bearer', method: 'POST', path: '/v1/messages', style: 'anthropic', keyIn: 'bearer', body: (model) => ({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] }) }, gw);
runRelaySecuritySuite({ name: 'messages count_tokens', method: 'POST', path: '/v1/messages/count_tokens', style: 'anthropic', body: (model) => ({ model, messages: [{ role: 'user', content: 'Hello' }] }) }, gw);
runRelaySecuritySuite({ name: 'messages count_tokens bearer', method: 'POST', path: '/v1/messages/count_tokens', style: 'anthropic', keyIn: 'bearer', body: (model) => ({ model, messages: [{ role: 'user', content: 'Hello' }] }) }, gw);
runRelaySecuritySuite({ name: 'responses', method: 'POST', path: '/v1/responses', style: 'openai', body: (model) => ({ model, input: 'Hello' }) }, gw);
runRelaySecuritySuite({ name: 'completions', method: 'POST', path: '/v1/completions', style: 'openai', body: (model) => ({ model, prompt: 'Hello' }) }, gw);
runRelaySecuritySuite({ name: 'images', method: 'POST', path: '/v1/images/generations', style: 'openai', body: (model) => ({ model, prompt: 'Hello' }) }, gw);
runRelaySecuritySuite({ name: 'gemini generate', method: 'POST', path: '/v1beta/models/{model}:generateContent', style: 'gemini', body: gemini }, gw);
runRelaySecuritySuite({ name: 'gemini generate query', method: 'POST', path: '/v1beta/models/{model}:generateContent', style: 'gemini', keyIn: 'query', body: gemini }, gw);
runRelaySecuritySuite({ name: 'gemini generate bearer', method: 'POST', path: '/v1beta/models/{model}:streamGenerateContent', style: 'gemini', keyIn: 'bearer', body: gemini }, gw);
runRelaySecuritySuite({ name: 'gemini countTokens', method: 'POST', path: '/v1beta/models/{model}:countTokens', style: 'gemini', body: gemini }, gw);
runRelaySecuritySuite({ name: 'gemini embed', method: 'POST', path: '/v1/models/{model}:embedContent', style: 'gemini', body: () => ({ content: { parts: [{ text: 'hi' }] } }) }, gw);
runRelaySecuritySuite({ name: 'gemini models single', method: 'GET', path: '/v1beta/models/gpt-4o-mini', style: 'gemini', keyIn: 'query' }, gw);
runRelaySecuritySuite({ name: 'videos', method: 'POST', path: '/v1/videos', style: 'openai', body: (model) => ({ model, prompt: 'Hello' }) }, gw);
runRelaySecuritySuite({ name: 'video generations', method: 'POST', path: '/v1/video/generations', style: 'openai', body: (model) => ({ model, prompt: 'Hello' }) }, gw);
runRelaySecuritySuite({ name: 'seedance asset get', method: 'GET', path: '/api/asset/get?id=asset-20260327164915-cj6zh', style: 'openai' }, gw);
runRelaySecuritySuite({ name: 'conversation get', method: 'GET', path: '/v1/conversations/conv_68ac7d3b1c8c8196a0a7d2c1', style: 'openai' }, gw);
runRelaySecuritySuite({ name: 'conversation items', method: 'GET', path: '/v1/conversations/conv_68ac7d3b1c8c8196a0a7d2c1/items?limit=5', style: 'openai' }, gw);
runRelaySecuritySuite({ name: 'stored response get', method: 'GET', path: '/v1/responses/resp_68ac7d3b1c8c8196a0a7d2c1', style: 'openai' }, gw);
runRelaySecuritySuite({ name: 'stored response input items', method: 'GET', path: '/v1/responses/resp_68ac7d3b1c8c8196a0a7d2c1/input_items?limit=5', style: 'openai' }, gw);
runRelaySecuritySuite({ name: 'billing subscription', method: 'GET', path: '/v1/dashboard/billing/subscription', style: 'openai' }, gw);
runRelaySecuritySuite({ name: 'pg is session only; chat via v1', method: 'POST', path: '/v1/chat/completions', style: 'openai', body: chat }, gw);
