/**
 * The input of a Realtime response whose usage never comes (docs/behaviour.md "Realtime"), on every
 * database: a response the upstream cut, or a `response.done` without usage, is billed — beside its output —
 * the text the client put before it at the input price, counted with the gateway's local count: the user
 * messages and tool results the upstream added to the conversation since the response before (GA
 * `conversation.item.added`, beta `conversation.item.created`; an item deleted, or added once the response
 * was under way, is not its input), or the response's own `input` items. A response cut before it wrote
 * anything is billed no input. The openai SDK's `OpenAIRealtimeWS` (behind a TLS front) against a scripted
 * upstream.
 */
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { countTextTokens } from '../../src/relay/count-tokens.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';
import { listenRealtimeUpstream } from './listen-realtime-upstream.js';
import { realtimeLedgerReads } from './realtime-ledger-reads.js';
import { startTlsFront } from './tls-front.js';

const quotaPerUnit = 500_000;
const perToken = quotaPerUnit / 1_000_000;
const price = { input: 4, output: 16, audio_input: 32, audio_output: 64 };
const key = `sk-${'n'.repeat(48)}`;
let n = 0;
const ev = (type: string, rest: Record<string, unknown> = {}) => JSON.stringify({ type, event_id: `event_${++n}`, ...rest });
/** `echoed`: what OpenAI's response.created tells of the request it answers (`conversation_id`, `metadata`). */
const created = (id: string, echoed: Record<string, unknown> = {}) => ev('response.created', { response: { id, object: 'realtime.response', status: 'in_progress', output: [], ...echoed } });
const doneWithoutUsage = (id: string, echoed: Record<string, unknown> = {}) => ev('response.done', { response: { id, object: 'realtime.response', status: 'completed', output: [], ...echoed } });
const textDelta = (responseId: string, delta: string) => ev('response.output_text.delta', { response_id: responseId, item_id: `item_${responseId}`, output_index: 0, content_index: 0, delta });
const userMessage = (id: string, text: string) => ({ id, type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text }] });

// Texts that end in a line break, so each counts the same alone as beside the others.
const question = 'What will the weather be like in Paris tomorrow afternoon?\n';
const toolResult = '{"city":"Paris","forecast":"sunny","high_c":21}\n';
const dropped = 'Forget this message, it was sent by mistake and deleted.\n';
const late = 'And what about Lyon, while you are at it?\n';
const ownInput = 'Summarise our conversation in one short sentence, please.\n';
const answer = 'Sunny and mild.';

type Handler = (ws: WebSocket, event: Record<string, unknown>) => void;

describe.each(allDialects)('realtime input billed without usage on $dialect', ({ dialect, available }) => {
  let gateway: TestGateway;
  let front: { url: string; close(): Promise<void> };
  let closeUpstream: () => Promise<void>;
  let handler: Handler = () => undefined;
  /** Beta shapes: items are echoed as `conversation.item.created`. */
  let beta = false;

  beforeAll(async () => {
    if (!available) return;
    const upstream = await listenRealtimeUpstream((ws) => {
      ws.on('error', () => undefined);
      ws.on('message', (data) => {
        const event = JSON.parse(data.toString()) as Record<string, unknown>;
        // The conversation as OpenAI keeps it: each item a client creates or deletes is echoed.
        if (event.type === 'conversation.item.create') ws.send(ev(beta ? 'conversation.item.created' : 'conversation.item.added', { previous_item_id: null, item: event.item }));
        if (event.type === 'conversation.item.delete') ws.send(ev('conversation.item.deleted', { item_id: event.item_id }));
        handler(ws, event);
      });
      ws.send(ev('session.created', { session: { id: 'sess_in', object: 'realtime.session', type: 'realtime', model: 'gpt-realtime' } }));
    });
    closeUpstream = upstream.close;
    gateway = await startTestGateway({
      dialect,
      config: {
        prices: { 'gpt-realtime': price },
        realtime_hold_input_tokens: 1_000,
        channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime-input', priority: 0, model_mapping: {} }],
        users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
        tokens: [{ name: 'k', user: 'u', key, quota: 1_000_000_000_000, expires_at: 0, enabled: true }],
      },
    });
    front = await startTlsFront(gateway.url);
  }, 30_000);
  afterAll(async () => {
    if (!available) return;
    await front.close();
    await gateway.close();
    await closeUpstream();
  }, 30_000);
  beforeEach(() => {
    handler = () => undefined;
    beta = false;
  });

  const { used, held, lastLogId, logsSince } = realtimeLedgerReads(() => gateway);

  /** An SDK session through the gateway, past `session.created`; the events it received, by type. */
  async function openSession() {
    const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { rejectUnauthorized: false } }, new OpenAI({ apiKey: key, baseURL: `${front.url}/v1` }));
    const types: string[] = [];
    rt.on('event', (event) => types.push(event.type));
    rt.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => rt.socket.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      rt.on('session.created', () => resolve());
      rt.socket.once('error', reject);
    });
    const waitFor = (type: string, count = 1) => expect.poll(() => types.filter((seen) => seen === type).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(count);
    return { rt, types, closed, waitFor };
  }

  const rowsOf = (rows: Awaited<ReturnType<typeof logsSince>>) => rows.map((row) => [Number(row.status), Number(row.input_tokens), Number(row.output_tokens), Number(row.quota)]);

  it.skipIf(!available)('bills a response.done without usage the user message and tool result added before it, at the input price', async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_ga'));
      ws.send(textDelta('resp_ga', answer));
      ws.send(doneWithoutUsage('resp_ga'));
    };
    const since = await lastLogId();
    const before = await used();
    const { rt, closed, waitFor } = await openSession();
    rt.send({ type: 'conversation.item.create', item: userMessage('item_q', question) });
    rt.send({ type: 'conversation.item.create', item: { id: 'item_tool', type: 'function_call_output', call_id: 'call_1', output: toolResult } });
    await waitFor('conversation.item.added', 2);
    rt.send({ type: 'response.create' });
    await waitFor('response.done');
    rt.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    const input = (await countTextTokens(question)) + (await countTextTokens(toolResult));
    const output = await countTextTokens(answer);
    const charge = (input * price.input + output * price.output) * perToken;
    expect(rowsOf(await logsSince(since))).toEqual([[200, input, output, charge]]);
    expect((await used()) - before).toBe(charge);
  }, 20_000);

  it.skipIf(!available)('bills a response the upstream cut (beta shapes) the message added before it, not one deleted nor one added while it ran', async () => {
    beta = true;
    handler = (ws, event) => {
      if (event.type === 'response.create') {
        ws.send(created('resp_cut'));
        ws.send(textDelta('resp_cut', answer));
      }
      // The item the client added during the response is echoed; then the upstream fails.
      if (event.type === 'conversation.item.create' && (event.item as { id?: string }).id === 'item_late') setTimeout(() => ws.close(1011, 'upstream failed'), 100);
    };
    const since = await lastLogId();
    const before = await used();
    const { rt, closed, waitFor } = await openSession();
    rt.send({ type: 'conversation.item.create', item: userMessage('item_q', question) });
    rt.send({ type: 'conversation.item.create', item: userMessage('item_dropped', dropped) });
    rt.send({ type: 'conversation.item.delete', item_id: 'item_dropped' });
    await waitFor('conversation.item.deleted');
    rt.send({ type: 'response.create' });
    await waitFor('response.output_text.delta');
    rt.send({ type: 'conversation.item.create', item: userMessage('item_late', late) });
    expect(await closed).toBe(1011);
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    const input = await countTextTokens(question);
    const output = await countTextTokens(answer);
    const charge = (input * price.input + output * price.output) * perToken;
    expect(rowsOf(await logsSince(since))).toEqual([[499, input, output, charge]]);
    expect((await used()) - before).toBe(charge);
  }, 20_000);

  it.skipIf(!available)("bills an out-of-band response its own input, and leaves the conversation's text to the response that reads it", async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      const id = (event.response as { input?: unknown } | undefined)?.input === undefined ? 'resp_default' : 'resp_own';
      ws.send(created(id));
      ws.send(textDelta(id, answer));
      ws.send(doneWithoutUsage(id));
    };
    const since = await lastLogId();
    const before = await used();
    const { rt, closed, waitFor } = await openSession();
    rt.send({ type: 'conversation.item.create', item: userMessage('item_q', question) });
    await waitFor('conversation.item.added');
    rt.send({ type: 'response.create', response: { conversation: 'none', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: ownInput }] }] } });
    await waitFor('response.done');
    rt.send({ type: 'response.create' });
    await waitFor('response.done', 2);
    rt.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    const output = await countTextTokens(answer);
    const charge = (input: number) => (input * price.input + output * price.output) * perToken;
    const [own, conversation] = [await countTextTokens(ownInput), await countTextTokens(question)];
    expect(rowsOf(await logsSince(since))).toEqual([
      [200, own, output, charge(own)],
      [200, conversation, output, charge(conversation)],
    ]);
    expect((await used()) - before).toBe(charge(own) + charge(conversation));
  }, 20_000);

  // From the realtime gaps review: each response.created took the oldest response.create waiting, so a
  // response server VAD made (the client asked for none) while an out-of-band one waited took that one's
  // input, and the out-of-band response the conversation's.
  it.skipIf(!available)("under server VAD, bills a response VAD made while an out-of-band one was asked for the conversation's text, and the out-of-band one its own input", async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      // Speech detected before the upstream reached the client's request: a response of its own, in the
      // default conversation, with no metadata — then the out-of-band one, echoing the request's metadata.
      const asked = event.response as { metadata?: unknown };
      ws.send(created('resp_vad', { conversation_id: 'conv_vad', metadata: null }));
      ws.send(created('resp_oob', { conversation_id: null, metadata: asked.metadata ?? null }));
      ws.send(textDelta('resp_vad', answer));
      ws.send(textDelta('resp_oob', answer));
      ws.send(doneWithoutUsage('resp_vad'));
      ws.send(doneWithoutUsage('resp_oob'));
    };
    const since = await lastLogId();
    const before = await used();
    const { rt, closed, waitFor } = await openSession();
    rt.send({ type: 'conversation.item.create', item: userMessage('item_q', question) });
    rt.send({ type: 'conversation.item.create', item: { id: 'item_tool', type: 'function_call_output', call_id: 'call_1', output: toolResult } });
    await waitFor('conversation.item.added', 2);
    rt.send({ type: 'response.create', response: { conversation: 'none', metadata: { purpose: 'summary' }, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: ownInput }] }] } });
    await waitFor('response.done', 2);
    rt.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    const output = await countTextTokens(answer);
    const charge = (input: number) => (input * price.input + output * price.output) * perToken;
    const conversation = (await countTextTokens(question)) + (await countTextTokens(toolResult));
    const own = await countTextTokens(ownInput);
    expect(conversation).not.toBe(own);
    expect(rowsOf(await logsSince(since))).toEqual([
      [200, conversation, output, charge(conversation)],
      [200, own, output, charge(own)],
    ]);
    expect((await used()) - before).toBe(charge(conversation) + charge(own));
  }, 20_000);

  // The same when the upstream never sent the VAD response's response.created: its response.done took the
  // oldest request waiting, so the out-of-band response found none and was billed the conversation's text.
  it.skipIf(!available)('under server VAD, a response.done of a response never created takes no out-of-band request', async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      const asked = event.response as { metadata?: unknown };
      ws.send(doneWithoutUsage('resp_vad_done', { conversation_id: 'conv_vad', metadata: null }));
      ws.send(created('resp_oob', { conversation_id: null, metadata: asked.metadata ?? null }));
      ws.send(textDelta('resp_oob', answer));
      ws.send(doneWithoutUsage('resp_oob'));
    };
    const since = await lastLogId();
    const before = await used();
    const { rt, closed, waitFor } = await openSession();
    rt.send({ type: 'conversation.item.create', item: userMessage('item_q', question) });
    await waitFor('conversation.item.added', 1);
    rt.send({ type: 'response.create', response: { conversation: 'none', metadata: { purpose: 'summary' }, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: ownInput }] }] } });
    await waitFor('response.done', 2);
    rt.close();
    await closed;
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    const output = await countTextTokens(answer);
    const own = await countTextTokens(ownInput);
    expect(own).not.toBe(await countTextTokens(question));
    const oob = rowsOf(await logsSince(since)).filter(([, , out]) => out === output);
    expect(oob).toEqual([[200, own, output, (own * price.input + output * price.output) * perToken]]);
  }, 20_000);

  it.skipIf(!available)('bills no input for a response cut before it wrote anything (the model may never have read it)', async () => {
    handler = (ws, event) => {
      if (event.type !== 'response.create') return;
      ws.send(created('resp_silent'));
      setTimeout(() => ws.close(1011, 'upstream failed'), 100);
    };
    const since = await lastLogId();
    const before = await used();
    const { rt, closed, waitFor } = await openSession();
    rt.send({ type: 'conversation.item.create', item: userMessage('item_q', question) });
    await waitFor('conversation.item.added');
    rt.send({ type: 'response.create' });
    expect(await closed).toBe(1011);
    await expect.poll(() => held(), { timeout: 8_000 }).toBe(0);
    expect(rowsOf(await logsSince(since))).toEqual([[499, 0, 0, 0]]);
    expect((await used()) - before).toBe(0);
  }, 20_000);
});
