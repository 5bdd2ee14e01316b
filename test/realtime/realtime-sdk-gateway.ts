/**
 * The setup of the Realtime suites that speak through the openai SDK to the fake Realtime API: a fake
 * upstream taking `channelKey`, a SQLite gateway with one OpenAI channel to it (named `rt`, for `models`),
 * and the TLS front the SDK's `OpenAIRealtimeWS` dials (it always dials `wss://`); and a session opened
 * through them.
 */
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { startTlsFront } from './tls-front.js';

export interface RealtimeSdkGateway {
  upstream: FakeRealtimeUpstream;
  gateway: TestGateway;
  /** The TLS front's `https://` address: the SDK's base URL is `${front.url}/v1`. */
  front: { url: string; close(): Promise<void> };
  close(): Promise<void>;
}

/** Starts the fake upstream, the gateway (`config` and the channel to the upstream) and the TLS front before it. */
export async function startRealtimeSdkGateway(options: { channelKey: string; models?: string[]; config: Omit<ConfigFile, 'channels'> }): Promise<RealtimeSdkGateway> {
  const upstream = await startFakeRealtimeUpstream({ expectedKeys: [options.channelKey] });
  const gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      ...options.config,
      channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: options.models ?? ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: options.channelKey, priority: 0, model_mapping: {} }],
    },
  });
  const front = await startTlsFront(gateway.url);
  return {
    upstream,
    gateway,
    front,
    async close() {
      await front.close();
      await gateway.close();
      await upstream.close();
    },
  };
}

export type RealtimeEvent = { type: string } & Record<string, unknown>;

export interface SdkSession {
  rt: OpenAIRealtimeWS;
  /** Every server event, in order, error events too. */
  events: RealtimeEvent[];
  /** Resolves with the close frame's code and reason once the socket closed. */
  closed: Promise<{ code: number; reason: string }>;
}

/** A `gpt-realtime` session dialled with `key` through the SDK, not waited for: events and the close are recorded from the start. */
export function dialSdkSession(front: { url: string }, key: string): SdkSession {
  const client = new OpenAI({ apiKey: key, baseURL: `${front.url}/v1` });
  const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { rejectUnauthorized: false } }, client);
  const events: RealtimeEvent[] = [];
  rt.on('event', (event) => events.push(event as never));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => rt.socket.on('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') })));
  return { rt, events, closed };
}

/**
 * A `gpt-realtime` session opened with `key` through the SDK: resolves once `session.created` came (rejects
 * when an error comes first). Every server event is kept in `events`, error events too: one after
 * `session.created` (a refused update) is not thrown.
 */
export async function openSdkSession(front: { url: string }, key: string): Promise<SdkSession> {
  const { rt, events, closed } = dialSdkSession(front, key);
  await new Promise<void>((resolve, reject) => {
    rt.on('session.created', () => resolve());
    rt.on('error', reject);
  });
  return { rt, events, closed };
}
