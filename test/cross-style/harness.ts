/**
 * The real gateway in front of one scripted upstream (test/fakes/scripted-upstream.ts), with one channel
 * per upstream style, and the official SDKs as clients. Each test queues the upstream's reply in its
 * vendor's wire format (test/fakes/scripted-vendor-wire.ts), sends through an SDK of another style, and
 * checks what the SDK hands back and what the upstream received.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

export const callerKey = `sk-${'a'.repeat(48)}`;

/**
 * The model that routes to each upstream style (the Gemini channel also serves a Gemini 3 model; the Chat
 * channel a reasoning model, the Responses channel one that does not reason and an o-series one; the
 * Anthropic and Gemini channels each an older model that does not think).
 */
export const M = {
  chat: 'gpt-4o-mini',
  chatReasoning: 'o4-mini',
  responses: 'gpt-5-mini',
  responsesPlain: 'gpt-4.1',
  responsesO3: 'o3',
  anthropic: 'claude-sonnet-4-5',
  anthropicThinkless: 'claude-3-5-sonnet-20241022',
  gemini: 'gemini-2.5-flash',
  gemini3: 'gemini-3-pro-preview',
  geminiThinkless: 'gemini-2.0-flash',
} as const;

export const modelOf: Record<WireStyle, string> = { 'openai-chat': M.chat, 'openai-responses': M.responses, anthropic: M.anthropic, gemini: M.gemini };

export interface CrossStyleFixture {
  gateway: TestGateway;
  upstream: ScriptedUpstream;
  openai: OpenAI;
  anthropic: Anthropic;
  gemini: GoogleGenAI;
  /** The newest log row, once the gateway has settled every request. */
  lastLog(): Promise<any>;
  close(): Promise<void>;
}

/** `env`: extra environment for the gateway (STREAM_KEEPALIVE_SECONDS …). */
export async function startCrossStyleFixture(env: Record<string, string> = {}): Promise<CrossStyleFixture> {
  const upstream = await startScriptedUpstream();
  const channel = (name: string, type: 'openai' | 'anthropic' | 'gemini', models: string[], settings: Record<string, unknown> = {}) => ({
    name, type, base_url: upstream.url, key: `up-${name}`, models, groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings,
  });
  const gateway = await startTestGateway({
    env,
    config: {
      prices: Object.fromEntries(Object.values(M).map((model) => [model, { input: 1, output: 2 }])),
      channels: [
        channel('chat', 'openai', [M.chat, M.chatReasoning]),
        channel('responses', 'openai', [M.responses, M.responsesPlain, M.responsesO3], { api: 'responses' }),
        channel('anthropic', 'anthropic', [M.anthropic, M.anthropicThinkless]),
        channel('gemini', 'gemini', [M.gemini, M.gemini3, M.geminiThinkless]),
      ],
      tokens: [{ name: 'caller', key: callerKey, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
  return {
    gateway,
    upstream,
    openai: new OpenAI({ apiKey: callerKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: callerKey, baseURL: gateway.url, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey: callerKey, httpOptions: { baseUrl: gateway.url } }),
    async lastLog() {
      await gateway.settled();
      const page = await gateway.gateway.services.repositories.logs.list({}, { page: 1, pageSize: 1 });
      return page.items[0];
    },
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** Every (client, upstream) pair of different styles. */
export function crossPairs(): { client: WireStyle; up: WireStyle }[] {
  const styles: WireStyle[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'];
  return styles.flatMap((up) => styles.map((client) => ({ up, client }))).filter(({ up, client }) => up !== client);
}

/**
 * Every (client, upstream, stream) case that goes through a conversion: same-style requests are relayed
 * byte for byte, except a non-streamed Gemini request (the gateway streams from Gemini and assembles it).
 */
export function convertedCases(): { client: WireStyle; up: WireStyle; stream: boolean }[] {
  const styles: WireStyle[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'];
  return styles
    .flatMap((up) => styles.flatMap((client) => [false, true].map((stream) => ({ up, client, stream }))))
    .filter(({ up, client, stream }) => !(up === client && (up !== 'gemini' || stream)));
}

/** What an SDK call raised (the suites then check its class, status and words); fails the test when it did not raise. */
export async function caught(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the SDK to raise');
}
