/** A gateway in front of hand-written byte-level upstreams (node:http), with readers of its database. */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callerKey, modelPrice } from '../billing-edges/billing-fixture.js';

export { callerKey };
export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface ByteUpstream {
  url: string;
  handler: Handler;
  /** Requests whose socket closed before the response ended, with the time it happened. */
  closedEarlyAt: number[];
  close(): Promise<void>;
}

export async function startByteUpstream(handler: Handler): Promise<ByteUpstream> {
  const upstream: ByteUpstream = { url: '', handler, closedEarlyAt: [], close: async () => undefined };
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.on('close', () => {
        if (!res.writableFinished) upstream.closedEarlyAt.push(Date.now());
      });
      Promise.resolve(upstream.handler(req, res, body)).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return upstream;
}

/** Writes honouring backpressure; resolves false if the response closed. */
export function writeAwait(res: ServerResponse, chunk: Buffer | string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StreamGateway {
  gateway: TestGateway;
  balances(): Promise<{ tokenUsed: number; userUsed: number; tokenRemain: number }>;
  reservations(): Promise<{ id: string; amount: number; state: string; settled_amount: number | null }[]>;
  logs(): Promise<any[]>;
  close(): Promise<void>;
}

export type ChannelStyle = 'openai-chat' | 'anthropic' | 'gemini' | 'openai-responses';

/** One channel per given model → upstream URL. */
export async function startStreamGateway(channels: { model: string; style: ChannelStyle; url: string }[], env: Record<string, string> = {}, quotas: { token?: number; user?: number } = {}): Promise<StreamGateway> {
  const config: ConfigFile = {
    prices: Object.fromEntries(channels.map((c) => [c.model, { ...modelPrice }])),
    channels: channels.map((c, i) => ({
      name: `ch-${i}-${c.model}`,
      type: (c.style === 'openai-chat' || c.style === 'openai-responses' ? 'openai' : c.style) as 'openai' | 'anthropic' | 'gemini',
      base_url: c.url,
      key: 'sk-upstream',
      models: [c.model],
      groups: ['default'],
      priority: 10,
      weight: 1,
      model_mapping: {},
      enabled: true,
      auto_disable: false,
      settings: c.style === 'openai-responses' ? { api: 'responses' } : {},
    })),
    users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, ...(quotas.user === undefined ? {} : { quota: quotas.user }) }],
    tokens: [{ name: 'payer-key', user: 'payer', key: callerKey, expires_at: 0, enabled: true, ...(quotas.token === undefined ? { unlimited_quota: true } : { quota: quotas.token }) }],
  } as ConfigFile;
  const gateway = await startTestGateway({ env, config });
  const { db } = gateway.gateway.services.database;
  return {
    gateway,
    async balances() {
      const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota', 'user_id']).where('name', '=', 'payer-key').executeTakeFirstOrThrow();
      const user = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', token.user_id).executeTakeFirstOrThrow();
      return { tokenUsed: Number(token.used_quota), userUsed: Number(user.used_quota), tokenRemain: Number(token.remain_quota) };
    },
    async reservations() {
      const rows = await db.selectFrom('quota_reservations').select(['id', 'amount', 'state', 'settled_amount']).execute();
      return rows.map((r) => ({ id: r.id, amount: Number(r.amount), state: r.state, settled_amount: r.settled_amount === null ? null : Number(r.settled_amount) }));
    },
    async logs() {
      await gateway.settled();
      return db.selectFrom('logs').selectAll().orderBy('id').execute();
    },
    close: () => gateway.close(),
  };
}

/** Raw streaming request with node:http, so the test controls reading (pause/resume/destroy). */
export function rawStreamRequest(url: string, headers: Record<string, string>, body: unknown): Promise<{ res: IncomingMessage; req: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } }, (res) => resolve({ res, req }));
    req.on('error', reject);
    req.end(payload);
  });
}

export const openaiHeaders = { authorization: `Bearer ${callerKey}` };
export const anthropicHeaders = { 'x-api-key': callerKey, 'anthropic-version': '2023-06-01' };
