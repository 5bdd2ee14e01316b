/**
 * From the estimates review (money): the reservation of an Anthropic Messages request covers its
 * definitions, not only its messages. Custom `tools` (name, description, `input_schema`) were counted from
 * the canonical form; what the canonical parser drops was not — a server tool (`web_search_…` with its
 * domain lists), a custom tool's `input_examples`, the top-level `mcp_servers` — yet a passthrough sends
 * them byte for byte and Anthropic bills them as input. A key that could pay for a one-line prompt was
 * admitted with a 60,000-token definition list, its charge capped at its balance. Now → 402, no upstream
 * call. A local count (an upstream that reports no usage) bills the tool schemas too. Through @anthropic-ai/sdk.
 * The walker itself is unit-tested in src/relay/text/collect-dropped-anthropic-prompt-text.test.ts.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { expectedCharge, modelOf, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';
import { chatStream } from '../fakes/scripted-vendor-wire.js';

let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Covers a short prompt many times over (≈ 13,000 input tokens at $3/M), and none of the definitions below. */
const balance = 20_000;
const many = 8_000;
const domains = Array.from({ length: many }, (_, index) => `docs-${index}.example.com`);
const bigDescription = Array.from({ length: many }, (_, index) => `Field ${index} of the record.`).join(' ');

interface Case {
  name: string;
  model: string;
  /** Sends the request through the SDK; `big` false sends the same shape with small definitions. */
  send(client: Anthropic, model: string, big: boolean): Promise<unknown>;
}

const question: Anthropic.MessageParam[] = [{ role: 'user', content: 'Summarize' }];

function customTool(model: string, big: boolean) {
  return { model, max_tokens: 16, messages: question, tools: [{ name: 'lookup', description: 'Looks a record up', input_schema: { type: 'object' as const, properties: { id: { type: 'string', description: big ? bigDescription : 'the id' } } } }] };
}

const cases: Case[] = [
  {
    name: 'a custom tool with a huge input_schema, Anthropic channel (passthrough)',
    model: modelOf.anthropic,
    send: (client, model, big) => client.messages.create(customTool(model, big)),
  },
  {
    name: 'a custom tool with a huge input_schema, Chat channel (converted)',
    model: modelOf['openai-chat'],
    send: (client, model, big) => client.messages.create(customTool(model, big)),
  },
  {
    name: 'a server tool (web_search) with a long allowed_domains list',
    model: modelOf.anthropic,
    send: (client, model, big) =>
      client.messages.create({ model, max_tokens: 16, messages: question, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1, allowed_domains: big ? domains : ['docs.example.com'] }] }),
  },
  {
    name: "a custom tool's input_examples",
    model: modelOf.anthropic,
    send: (client, model, big) =>
      client.beta.messages.create({
        model, max_tokens: 16, messages: question, betas: ['advanced-tool-use-2025-11-20'],
        tools: [{ name: 'lookup', input_schema: { type: 'object', properties: { domain: { type: 'string' } } }, input_examples: (big ? domains : ['docs.example.com']).map((domain) => ({ domain })) }],
      }),
  },
  {
    name: 'a long mcp_servers list',
    model: modelOf.anthropic,
    send: (client, model, big) =>
      client.beta.messages.create({
        model, max_tokens: 16, messages: question, betas: ['mcp-client-2025-04-04'],
        mcp_servers: (big ? domains : ['docs.example.com']).map((domain, index) => ({ type: 'url' as const, name: `server-${index}`, url: `https://${domain}/mcp`, authorization_token: 'token', tool_configuration: { allowed_tools: ['search', 'fetch'] } })),
      }),
  },
];

function styleOf(model: string) {
  return model === modelOf.anthropic ? 'anthropic' : 'openai-chat';
}

describe('the estimate of an Anthropic Messages request counts its definitions', () => {
  it.each(cases)('$name: the key is served with small definitions and refused 402 with large ones, before any upstream call', async ({ model, send }) => {
    fixture = await startBillingFixture({ tokenQuota: balance, userQuota: 100_000_000 });
    const upstream = fixture.primary[styleOf(model)];
    await send(fixture.sdk.anthropic, model, false);
    expect(upstream.requests).toHaveLength(1);
    const refused = await send(fixture.sdk.anthropic, model, true).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect({ refused: refused instanceof Anthropic.APIError ? refused.status : refused, upstreamCalls: upstream.requests.length }).toEqual({ refused: 402, upstreamCalls: 1 });
  });
});

describe('the local count of an Anthropic request holds its tool definitions', () => {
  it('a Chat upstream that reports no usage bills the custom tool schema as input', async () => {
    fixture = await startBillingFixture({ userQuota: 100_000_000 });
    fixture.primary['openai-chat'].enqueue(chatStream({ text: 'ok' }));
    const spent = await fixture.spent(() => fixture!.sdk.anthropic.messages.stream(customTool(modelOf['openai-chat'], true)).finalMessage());
    const [row] = (await fixture.logs()).slice(-1);
    expect(row.usage_source).toBe('local');
    expect(spent).toBeGreaterThanOrEqual(expectedCharge({ input: tokens(bigDescription), output: 1 }));
  });
});
