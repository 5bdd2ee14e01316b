import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from './fake-realtime-upstream.js';

let fake: FakeRealtimeUpstream;
const clients: WebSocket[] = [];

beforeEach(async () => {
  fake = await startFakeRealtimeUpstream({ expectedKeys: ['sk-rt-a', 'sk-rt-b'] });
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await fake.close();
});

/** Test assertions walk arbitrary JSON events. */
type Event = Record<string, any>;

interface Client {
  socket: WebSocket;
  events: Event[];
  /** Resolves with the first event of `type` not yet taken (in arrival order). */
  next(type: string): Promise<Event>;
  /** Resolves once `count` events have arrived in all. */
  count(count: number): Promise<Event[]>;
  send(event: Record<string, unknown>): void;
  closed: Promise<{ code: number; reason: string }>;
}

const wsUrl = (path = '/v1/realtime?model=gpt-realtime'): string => `${fake.url.replace(/^http/, 'ws')}${path}`;

async function connect(auth: { bearer?: string; protocols?: string[] } = { bearer: 'sk-rt-a' }, path?: string): Promise<Client> {
  const socket = new WebSocket(wsUrl(path), auth.protocols ?? [], auth.bearer === undefined ? {} : { headers: { authorization: `Bearer ${auth.bearer}` } });
  clients.push(socket);
  const events: Event[] = [];
  const taken = new Set<Event>();
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    events.push(JSON.parse(String(data)) as Event);
    for (const waiter of waiters.splice(0)) waiter();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const until = async <T>(check: () => T | undefined): Promise<T> => {
    for (;;) {
      const found = check();
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    events,
    next: (type) =>
      until(() => {
        const event = events.find((candidate) => candidate.type === type && !taken.has(candidate));
        if (event !== undefined) taken.add(event);
        return event;
      }),
    count: (count) => until(() => (events.length >= count ? events.slice(0, count) : undefined)),
    send: (event) => socket.send(JSON.stringify(event)),
    closed,
  };
}

/** An upgrade the fake refuses: the HTTP status and the JSON body it wrote. */
function refused(auth: { bearer?: string; protocols?: string[] }, path?: string): Promise<{ status: number; body: any }> {
  const socket = new WebSocket(wsUrl(path), auth.protocols ?? [], auth.bearer === undefined ? {} : { headers: { authorization: `Bearer ${auth.bearer}` } });
  clients.push(socket);
  return new Promise((resolve, reject) => {
    socket.on('open', () => reject(new Error('upgrade unexpectedly accepted')));
    socket.on('error', () => undefined);
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
  });
}

/** Sends response.create and collects everything through response.done. */
async function runResponse(client: Client): Promise<Event[]> {
  const start = client.events.length;
  client.send({ type: 'response.create', event_id: 'evt_client_1' });
  await client.next('response.done');
  return client.events.slice(start);
}

describe('connecting', () => {
  it('accepts Bearer auth, sends session.created and records the connection', async () => {
    const client = await connect({ bearer: 'sk-rt-b' });
    const created = await client.next('session.created');
    expect(created).toEqual({
      type: 'session.created',
      event_id: expect.stringMatching(/^event_\d+$/),
      session: { id: 'sess_1', object: 'realtime.session', model: 'gpt-realtime', type: 'realtime', output_modalities: ['text'] },
    });
    expect(client.socket.protocol).toBe('');
    expect(fake.connections).toHaveLength(1);
    expect(fake.connections[0]).toMatchObject({ path: '/v1/realtime?model=gpt-realtime', protocols: [], received: [], closed: false });
    expect(fake.connections[0]!.headers.authorization).toBe('Bearer sk-rt-b');
  });

  it('accepts the subprotocol key, selects realtime and records the offered protocols', async () => {
    const client = await connect({ protocols: ['realtime', 'openai-insecure-api-key.sk-rt-a', 'openai-beta.realtime-v1'] });
    expect(client.socket.protocol).toBe('realtime');
    expect((await client.next('session.created')).session.id).toBe('sess_1');
    expect(fake.connections[0]!.protocols).toEqual(['realtime', 'openai-insecure-api-key.sk-rt-a', 'openai-beta.realtime-v1']);
    expect(fake.connections[0]!.headers.authorization).toBeUndefined();
  });

  it('refuses a wrong or missing key with 401 and OpenAI error body', async () => {
    const body = { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } };
    expect(await refused({ bearer: 'sk-wrong' })).toEqual({ status: 401, body });
    expect(await refused({ protocols: ['realtime', 'openai-insecure-api-key.sk-wrong'] })).toEqual({ status: 401, body });
    expect(await refused({})).toEqual({ status: 401, body });
    expect(fake.connections).toHaveLength(0);
  });

  it('needs the model query and the realtime path', async () => {
    const missing = await refused({ bearer: 'sk-rt-a' }, '/v1/realtime');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ param: 'model', type: 'invalid_request_error' });
    expect((await refused({ bearer: 'sk-rt-a' }, '/v1/other?model=gpt-realtime')).status).toBe(404);
  });

  it('refuseNextUpgrade refuses exactly one upgrade', async () => {
    fake.refuseNextUpgrade(429);
    const first = await refused({ bearer: 'sk-rt-a' });
    expect(first.status).toBe(429);
    expect(first.body.error).toMatchObject({ code: 'rate_limit_exceeded' });
    fake.refuseNextUpgrade(503);
    expect((await refused({ bearer: 'sk-rt-a' })).status).toBe(503);
    const client = await connect();
    await client.next('session.created');
    expect(fake.connections).toHaveLength(1);
  });
});

describe('session and conversation', () => {
  it('echoes session.update merged and adds conversation items with ids', async () => {
    const client = await connect();
    await client.next('session.created');
    client.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Be brief.', tools: [] } });
    const updated = await client.next('session.updated');
    expect(updated.session).toEqual({
      id: 'sess_1',
      object: 'realtime.session',
      model: 'gpt-realtime',
      type: 'realtime',
      output_modalities: ['text'],
      instructions: 'Be brief.',
      tools: [],
    });

    const item = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] };
    client.send({ type: 'conversation.item.create', item });
    const added = await client.next('conversation.item.added');
    const done = await client.next('conversation.item.done');
    expect(added.item).toEqual({ ...item, id: expect.stringMatching(/^item_\d+$/) });
    expect(done.item).toEqual(added.item);
    client.send({ type: 'conversation.item.create', item: { ...item, id: 'item_mine' } });
    expect((await client.next('conversation.item.done')).item.id).toBe('item_mine');
    expect(fake.connections[0]!.received.map((event) => event.type)).toEqual(['session.update', 'conversation.item.create', 'conversation.item.create']);
  });

  it('answers an unknown or unparsable event with an error event', async () => {
    const client = await connect();
    await client.next('session.created');
    client.send({ type: 'nonsense.event', event_id: 'evt_x' });
    expect((await client.next('error')).error).toMatchObject({ type: 'invalid_request_error', code: 'unknown_event', event_id: 'evt_x', param: expect.anything() });
    client.socket.send('{not json');
    const error = await client.next('error');
    expect(error).toEqual({
      type: 'error',
      event_id: expect.stringMatching(/^event_\d+$/),
      error: { type: 'invalid_request_error', code: 'unknown_event', message: expect.any(String), param: null, event_id: null },
    });
    expect(fake.connections[0]!.received).toEqual([{ type: 'nonsense.event', event_id: 'evt_x' }]);
  });
});

describe('responses', () => {
  it('streams created → deltas → text done → done with the default usage', async () => {
    const client = await connect();
    await client.next('session.created');
    const events = await runResponse(client);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.done',
    ]);
    const ids = events.map((event) => Number(String(event.event_id).slice('event_'.length)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const [created, delta] = events;
    expect(created!.response).toEqual({ id: 'resp_1', object: 'realtime.response', status: 'in_progress', output: [] });
    expect(delta).toEqual({
      type: 'response.output_text.delta',
      event_id: expect.any(String),
      response_id: 'resp_1',
      item_id: expect.stringMatching(/^item_\d+$/),
      output_index: 0,
      content_index: 0,
      delta: 'Hel',
    });
    expect(events.slice(1, 4).map((event) => event.delta)).toEqual(['Hel', 'lo', '!']);
    expect(events[4]).toMatchObject({ response_id: 'resp_1', item_id: delta!.item_id, text: 'Hello!' });
    expect(events[5]!.response).toEqual({
      id: 'resp_1',
      object: 'realtime.response',
      status: 'completed',
      output: [{ id: delta!.item_id, type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello!' }] }],
      usage: {
        total_tokens: 150,
        input_tokens: 120,
        output_tokens: 30,
        input_token_details: { text_tokens: 120, audio_tokens: 0, cached_tokens: 20, cached_tokens_details: { text_tokens: 20, audio_tokens: 0 } },
        output_token_details: { text_tokens: 30, audio_tokens: 0 },
      },
    });
  });

  it('reports the configured usage and deltas for one response, then the default; omit drops usage', async () => {
    const client = await connect();
    await client.next('session.created');
    fake.setNextUsage({ input_tokens: 7, output_tokens: 3 });
    fake.setDeltas(['A', 'B']);
    let done = (await runResponse(client)).at(-1)!;
    expect(done.response.usage).toEqual({
      total_tokens: 10,
      input_tokens: 7,
      output_tokens: 3,
      input_token_details: { text_tokens: 7, audio_tokens: 0, cached_tokens: 0, cached_tokens_details: { text_tokens: 0, audio_tokens: 0 } },
      output_token_details: { text_tokens: 3, audio_tokens: 0 },
    });
    expect(done.response.output[0].content[0].text).toBe('AB');
    done = (await runResponse(client)).at(-1)!;
    expect(done.response.usage.input_tokens).toBe(120);
    expect(done.response.id).toBe('resp_2');

    fake.setNextUsage('omit');
    done = (await runResponse(client)).at(-1)!;
    expect(done.response.status).toBe('completed');
    expect(done.response).not.toHaveProperty('usage');
    expect((await runResponse(client)).at(-1)!.response.usage.output_tokens).toBe(30);
  });

  it('holds a response until response.cancel, which reports cancelled with 50/5', async () => {
    const client = await connect();
    await client.next('session.created');
    fake.holdResponses(true);
    client.send({ type: 'response.create' });
    await client.next('response.created');
    await client.next('response.output_text.delta');
    await client.next('response.output_text.delta');
    await client.next('response.output_text.delta');
    // Nothing finishes on its own.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.events.some((event) => event.type === 'response.done')).toBe(false);
    client.send({ type: 'response.create', event_id: 'evt_second' });
    expect((await client.next('error')).error).toMatchObject({ code: 'conversation_already_has_active_response', event_id: 'evt_second' });

    client.send({ type: 'response.cancel' });
    const done = await client.next('response.done');
    expect(done.response).toMatchObject({ id: 'resp_1', status: 'cancelled' });
    expect(done.response.usage).toMatchObject({ total_tokens: 55, input_tokens: 50, output_tokens: 5 });
    expect(client.events.some((event) => event.type === 'response.output_text.done')).toBe(false);

    client.send({ type: 'response.cancel', event_id: 'evt_again' });
    expect((await client.next('error')).error).toMatchObject({ code: 'response_cancel_not_active', event_id: 'evt_again' });
  });

  it('finishHeld completes a held response with the configured usage', async () => {
    const client = await connect();
    await client.next('session.created');
    fake.holdResponses(true);
    fake.setNextUsage({ input_tokens: 11, output_tokens: 4, cached_tokens: 2 });
    client.send({ type: 'response.create' });
    await client.next('response.created');
    await client.next('response.output_text.delta');
    fake.finishHeld();
    expect((await client.next('response.output_text.done')).text).toBe('Hello!');
    const done = await client.next('response.done');
    expect(done.response.status).toBe('completed');
    expect(done.response.usage).toMatchObject({ input_tokens: 11, output_tokens: 4, input_token_details: { cached_tokens: 2 } });

    fake.holdResponses(false);
    expect((await runResponse(client)).at(-1)!.response.status).toBe('completed');
  });
});

describe('dropAll', () => {
  it('closes every open client with 1011 and marks the connections closed', async () => {
    const first = await connect();
    const second = await connect({ protocols: ['realtime', 'openai-insecure-api-key.sk-rt-b'] });
    await first.next('session.created');
    await second.next('session.created');
    fake.dropAll();
    expect((await first.closed).code).toBe(1011);
    expect((await second.closed).code).toBe(1011);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.connections.map((connection) => connection.closed)).toEqual([true, true]);
  });
});
