import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelaySecuritySuite, type SecuritySuiteContext } from './relay-security-suite.js';
import { startSecurityGateway } from './start-security-gateway.js';

const listModels = { name: 'list models', method: 'GET', path: '/v1/models' } as const;

runRelaySecuritySuite({ ...listModels, style: 'openai' }, () => startSecurityGateway());
runRelaySecuritySuite({ ...listModels, style: 'anthropic' }, () => startSecurityGateway());
// GET /v1/models learns the Gemini style from the key header itself, so a keyless call answers OpenAI style.
runRelaySecuritySuite({ ...listModels, style: 'gemini', styleWithoutKey: 'openai' }, () => startSecurityGateway());
runRelaySecuritySuite({ ...listModels, style: 'gemini', keyIn: 'query', styleWithoutKey: 'openai' }, () => startSecurityGateway());
runRelaySecuritySuite({ name: 'retrieve model', method: 'GET', path: '/v1/models/gpt-4o-mini', style: 'openai' }, () => startSecurityGateway());
runRelaySecuritySuite({ name: 'Gemini list models', method: 'GET', path: '/v1beta/models', style: 'gemini' }, () => startSecurityGateway());
runRelaySecuritySuite({ name: 'Gemini list models', method: 'GET', path: '/v1beta/models', style: 'gemini', keyIn: 'query' }, () => startSecurityGateway());
runRelaySecuritySuite({ name: 'OpenAI list models under the Gemini prefix', method: 'GET', path: '/v1beta/openai/models', style: 'openai' }, () => startSecurityGateway());

describe('GET /v1/models with a channel pin', () => {
  let context: SecuritySuiteContext;

  beforeAll(async () => {
    context = await startSecurityGateway({
      config: {
        prices: { 'claude-sonnet-4': { input: 1, output: 2 } },
        channels: [{ name: 'other', type: 'anthropic', base_url: 'http://127.0.0.1:9', key: 'k', models: ['claude-sonnet-4'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: true, settings: {} }],
      },
    });
  });
  afterAll(async () => context?.close());

  const listIds = async (key: string) => {
    const response = await fetch(`${context.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { id: string }[] }).data.map((model) => model.id);
  };

  it('lists every channel’s models for an admin without a pin', async () => {
    expect(await listIds(context.keys.admin)).toEqual(['claude-sonnet-4', context.forbiddenModel, context.allowedModel].sort());
  });

  it('lists only the pinned channel’s models for an admin pin', async () => {
    expect(await listIds(`${context.keys.admin}-${context.channelId}`)).toEqual([context.allowedModel, context.forbiddenModel].sort());
  });

  it('lists only the models within model_limits for the limited key', async () => {
    expect(await listIds(context.keys.valid)).toEqual([context.allowedModel]);
  });
});
