/**
 * A stand-in for OpenAI's Realtime API over WebSocket (protocols.md §9, GA event shapes) on a real loopback
 * socket: `GET /v1/realtime?model=<model>` upgraded with `ws`. Auth is `Authorization: Bearer <key>` or the
 * browser subprotocol `openai-insecure-api-key.<key>` (`realtime` is selected when offered); a wrong key is a
 * raw HTTP 401 with OpenAI's error body. After `session.created` it answers `session.update`,
 * `conversation.item.create`, `response.create` (created → `response.output_text.delta`s → `.done` →
 * `response.done` with usage) and `response.cancel` (of a held response), one JSON text frame per event with a
 * `setImmediate` between frames. With a transcription model set on the session (GA
 * `audio.input.transcription`, beta `input_audio_transcription`), `input_audio_buffer.commit` is answered with
 * `input_audio_buffer.committed`, the user item and `conversation.item.input_audio_transcription.completed`
 * carrying the transcription's usage (`duration` for whisper-1, else `tokens`). Ids are numbered per server (`event_<n>`, `sess_<n>`, `resp_<n>`, `item_<n>`),
 * usage comes from the test. `holdFirstFrames` makes new sessions hold `session.created` (and every answer behind
 * it) until `releaseFirstFrames`. It never imports gateway code.
 */
import { createServer, STATUS_CODES, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { isObject } from './fake-http-helpers.js';

export interface RealtimeUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens?: number;
  /** Of input_tokens, the audio ones (`input_token_details.audio_tokens`); 0 unless set. */
  audio_input_tokens?: number;
  /** Of cached_tokens, the audio ones (`cached_tokens_details.audio_tokens`). */
  cached_audio_tokens?: number;
  /** Of output_tokens, the audio ones (`output_token_details.audio_tokens`). */
  audio_output_tokens?: number;
}

export interface RecordedRealtimeConnection {
  /** Path with query, e.g. '/v1/realtime?model=gpt-realtime'. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Subprotocols the client offered (Sec-WebSocket-Protocol, split on commas, trimmed). */
  protocols: string[];
  /** Every client event received, parsed. */
  received: Array<Record<string, unknown>>;
  closed: boolean;
}

export interface FakeRealtimeUpstream {
  /** http://127.0.0.1:<port> (the gateway turns it into ws://). */
  url: string;
  connections: RecordedRealtimeConnection[];
  /** Usage the next response.done reports (default {input_tokens: 120, output_tokens: 30, cached_tokens: 20}). Applies to one response, then resets to default. */
  setNextUsage(usage: RealtimeUsage | 'omit'): void;
  /** Text deltas per response (default ['Hel', 'lo', '!']). */
  setDeltas(deltas: string[]): void;
  /** When true, a response.create starts a response (response.created + deltas) but does NOT finish it until the client sends response.cancel (then response.done with status 'cancelled' and usage {input_tokens: 50, output_tokens: 5}) or `finishHeld()` is called. */
  holdResponses(hold: boolean): void;
  finishHeld(): void;
  /** The next upgrade is refused with this HTTP status (and a JSON OpenAI error body: `body`, or OpenAI's for the status). */
  refuseNextUpgrade(status: number, body?: unknown): void;
  /** What the next transcription reports: audio tokens in, text tokens out, or seconds (whisper-1). Default 16 in, 4 out, 2.5 s. */
  setTranscriptionUsage(usage: TranscriptionUsage): void;
  /**
   * When true, each session opened from now on holds its first frame (`session.created`) and every answer
   * after it until `releaseFirstFrames()` (client events are still received and recorded): a session that
   * ends before the upstream said anything.
   */
  holdFirstFrames(hold: boolean): void;
  releaseFirstFrames(): void;
  /** Closes every open upstream socket from the server side (code 1011). */
  dropAll(): void;
  close(): Promise<void>;
}

export interface TranscriptionUsage {
  audio_tokens: number;
  output_tokens: number;
  seconds: number;
}

const defaultTranscription: TranscriptionUsage = { audio_tokens: 16, output_tokens: 4, seconds: 2.5 };
const defaultUsage: RealtimeUsage = { input_tokens: 120, output_tokens: 30, cached_tokens: 20 };
const defaultDeltas: readonly string[] = ['Hel', 'lo', '!'];
const cancelledUsage: RealtimeUsage = { input_tokens: 50, output_tokens: 5 };

/** Client events of §9 the fake takes without answering (recorded only). */
const silentlyAccepted: ReadonlySet<string> = new Set([
  'input_audio_buffer.append',
  'input_audio_buffer.clear',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'conversation.item.delete',
  'output_audio_buffer.clear',
]);

/** A server event before it is sent: `event_id` is numbered when it goes on the wire. */
type PendingEvent = { type: string } & Record<string, unknown>;

interface HeldResponse {
  responseId: string;
  itemId: string;
  text: string;
  usage: RealtimeUsage | 'omit';
}

interface LiveConnection {
  record: RecordedRealtimeConnection;
  socket: WebSocket;
  session: Record<string, unknown>;
  /** Serializes this connection's outgoing frames. */
  chain: Promise<void>;
  held: HeldResponse | undefined;
  lastItemId: string | null;
}

export async function startFakeRealtimeUpstream(options: { expectedKeys: string[] }): Promise<FakeRealtimeUpstream> {
  const connections: RecordedRealtimeConnection[] = [];
  const live = new Set<LiveConnection>();
  let nextUsage: RealtimeUsage | 'omit' = defaultUsage;
  let deltas: string[] = [...defaultDeltas];
  let hold = false;
  let refusal: { status: number; body: unknown } | undefined;
  let holdingFirstFrames = false;
  /** Each held session's gate: called, its frames go. */
  const firstFrameGates = new Set<() => void>();
  let transcription = defaultTranscription;
  const counters = { event: 0, session: 0, response: 0, item: 0 };

  const server = createServer((request, response) => {
    // Plain HTTP (no upgrade): the realtime path wants a WebSocket, anything else is unknown.
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const [status, body] =
      path === '/v1/realtime'
        ? [426, openaiError('This endpoint requires a WebSocket upgrade', 'invalid_request_error', null)]
        : [404, openaiError(`Invalid URL (${request.method ?? 'GET'} ${path})`, 'invalid_request_error', null)];
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });

  const wss = new WebSocketServer({
    noServer: true,
    // Select `realtime` when the client offered it; otherwise answer no subprotocol.
    handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false),
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (refusal !== undefined) {
      const { status, body } = refusal;
      refusal = undefined;
      refuse(socket, status, body ?? refusalBody(status));
      return;
    }
    const url = new URL(request.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/realtime') {
      refuse(socket, 404, openaiError(`Invalid URL (${request.method ?? 'GET'} ${url.pathname})`, 'invalid_request_error', null));
      return;
    }
    const protocols = offeredProtocols(request.headers['sec-websocket-protocol']);
    const bearer = /^Bearer (.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]?.trim();
    const protocolKeys = protocols.filter((p) => p.startsWith('openai-insecure-api-key.')).map((p) => p.slice('openai-insecure-api-key.'.length));
    const authorized = [bearer, ...protocolKeys].some((key) => key !== undefined && options.expectedKeys.includes(key));
    if (!authorized) {
      refuse(socket, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      return;
    }
    const model = url.searchParams.get('model');
    if (model === null || model === '') {
      refuse(socket, 400, openaiError("Missing required parameter: 'model'.", 'invalid_request_error', 'missing_required_parameter', 'model'));
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const record: RecordedRealtimeConnection = { path: request.url ?? '', headers: request.headers, protocols, received: [], closed: false };
      connections.push(record);
      const connection: LiveConnection = {
        record,
        socket: ws,
        session: { id: `sess_${++counters.session}`, object: 'realtime.session', model, type: 'realtime', output_modalities: ['text'] },
        // Every frame is queued on the chain: a held first frame holds the rest behind it.
        chain: holdingFirstFrames ? new Promise<void>((resolve) => firstFrameGates.add(resolve)) : Promise.resolve(),
        held: undefined,
        lastItemId: null,
      };
      live.add(connection);
      ws.on('close', () => {
        record.closed = true;
        live.delete(connection);
      });
      ws.on('error', () => undefined);
      ws.on('message', (data) => onMessage(connection, rawText(data)));
      send(connection, [{ type: 'session.created', session: connection.session }]);
    });
  });

  /** Queues events on the connection: separate text frames, a `setImmediate` after each. */
  function send(connection: LiveConnection, events: PendingEvent[]): void {
    connection.chain = connection.chain
      .then(async () => {
        for (const { type, ...rest } of events) {
          if (connection.socket.readyState !== WebSocket.OPEN) return;
          connection.socket.send(JSON.stringify({ type, event_id: `event_${++counters.event}`, ...rest }));
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      })
      .catch(() => undefined);
  }

  function sendError(connection: LiveConnection, code: string, message: string, clientEventId: unknown, param: string | null = null): void {
    send(connection, [
      {
        type: 'error',
        error: { type: 'invalid_request_error', code, message, param, event_id: typeof clientEventId === 'string' ? clientEventId : null },
      },
    ]);
  }

  function onMessage(connection: LiveConnection, text: string): void {
    let event: unknown;
    try {
      event = JSON.parse(text) as unknown;
    } catch {
      sendError(connection, 'unknown_event', 'The client event could not be parsed as JSON.', null);
      return;
    }
    if (!isObject(event)) {
      sendError(connection, 'unknown_event', 'The client event must be a JSON object.', null);
      return;
    }
    connection.record.received.push(event);
    const type = event.type;
    switch (type) {
      case 'session.update': {
        const update = isObject(event.session) ? event.session : {};
        connection.session = { ...connection.session, ...update, id: connection.session.id, object: 'realtime.session' };
        send(connection, [{ type: 'session.updated', session: connection.session }]);
        return;
      }
      case 'conversation.item.create': {
        const given = isObject(event.item) ? event.item : {};
        const item = { ...given, id: typeof given.id === 'string' && given.id !== '' ? given.id : `item_${++counters.item}` };
        const previous = typeof event.previous_item_id === 'string' ? event.previous_item_id : connection.lastItemId;
        connection.lastItemId = item.id;
        send(connection, [
          { type: 'conversation.item.added', previous_item_id: previous, item },
          { type: 'conversation.item.done', previous_item_id: previous, item },
        ]);
        return;
      }
      case 'response.create':
        startResponse(connection, event.event_id);
        return;
      case 'input_audio_buffer.commit':
        commitAudio(connection);
        return;
      case 'response.cancel': {
        const held = connection.held;
        if (held === undefined) {
          sendError(connection, 'response_cancel_not_active', 'Cancellation failed: no active response found.', event.event_id);
          return;
        }
        connection.held = undefined;
        send(connection, [doneEvent(held, 'cancelled', cancelledUsage)]);
        return;
      }
      default:
        if (typeof type === 'string' && silentlyAccepted.has(type)) return;
        sendError(connection, 'unknown_event', `Invalid value: '${typeof type === 'string' ? type : String(type)}'. Unknown client event type.`, event.event_id, 'type');
    }
  }

  /** The buffered audio becomes a user item; transcribed when the session names a transcription model. */
  function commitAudio(connection: LiveConnection): void {
    const itemId = `item_${++counters.item}`;
    const previous = connection.lastItemId;
    connection.lastItemId = itemId;
    const item = { id: itemId, type: 'message', role: 'user', content: [{ type: 'input_audio', transcript: null }] };
    const events: PendingEvent[] = [
      { type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: itemId },
      { type: 'conversation.item.added', previous_item_id: previous, item },
    ];
    const model = transcriptionModelOf(connection.session);
    if (model !== undefined) {
      const reported = transcription;
      transcription = defaultTranscription;
      const usage =
        model === 'whisper-1'
          ? { type: 'duration', seconds: reported.seconds }
          : {
              type: 'tokens',
              total_tokens: reported.audio_tokens + reported.output_tokens,
              input_tokens: reported.audio_tokens,
              input_token_details: { text_tokens: 0, audio_tokens: reported.audio_tokens },
              output_tokens: reported.output_tokens,
            };
      events.push({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript: 'Hello there.', usage });
    }
    send(connection, events);
  }

  function startResponse(connection: LiveConnection, clientEventId: unknown): void {
    if (connection.held !== undefined) {
      sendError(
        connection,
        'conversation_already_has_active_response',
        `Conversation already has an active response in progress: ${connection.held.responseId}. Wait until the response is finished before creating a new one.`,
        clientEventId,
      );
      return;
    }
    // The usage is taken when the response starts, so `setNextUsage` applies to exactly one response.
    const usage = nextUsage;
    nextUsage = defaultUsage;
    const response: HeldResponse = { responseId: `resp_${++counters.response}`, itemId: `item_${++counters.item}`, text: deltas.join(''), usage };
    connection.lastItemId = response.itemId;
    const events: PendingEvent[] = [
      { type: 'response.created', response: { id: response.responseId, object: 'realtime.response', status: 'in_progress', output: [] } },
      ...deltas.map((delta) => ({
        type: 'response.output_text.delta',
        response_id: response.responseId,
        item_id: response.itemId,
        output_index: 0,
        content_index: 0,
        delta,
      })),
    ];
    if (hold) {
      connection.held = response;
      send(connection, events);
      return;
    }
    send(connection, [...events, ...finishEvents(response)]);
  }

  function finishEvents(response: HeldResponse): PendingEvent[] {
    return [
      {
        type: 'response.output_text.done',
        response_id: response.responseId,
        item_id: response.itemId,
        output_index: 0,
        content_index: 0,
        text: response.text,
      },
      doneEvent(response, 'completed', response.usage),
    ];
  }

  return {
    url: `http://127.0.0.1:${await listen(server)}`,
    connections,
    setNextUsage: (usage) => {
      nextUsage = usage === 'omit' ? 'omit' : { ...usage };
    },
    setDeltas: (next) => {
      deltas = [...next];
    },
    holdResponses: (next) => {
      hold = next;
    },
    finishHeld: () => {
      for (const connection of live) {
        const held = connection.held;
        if (held === undefined) continue;
        connection.held = undefined;
        send(connection, finishEvents(held));
      }
    },
    setTranscriptionUsage: (usage) => {
      transcription = { ...usage };
    },
    refuseNextUpgrade: (status, body) => {
      refusal = { status, body };
    },
    holdFirstFrames: (next) => {
      holdingFirstFrames = next;
    },
    releaseFirstFrames: () => {
      for (const open of firstFrameGates) open();
      firstFrameGates.clear();
    },
    dropAll: () => {
      for (const connection of live) {
        connection.held = undefined;
        connection.socket.close(1011, 'fake realtime upstream dropped the connection');
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const connection of live) connection.socket.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The session's transcription model: GA `audio.input.transcription.model`, beta `input_audio_transcription.model`. */
function transcriptionModelOf(session: Record<string, unknown>): string | undefined {
  const audio = isObject(session.audio) && isObject(session.audio.input) ? session.audio.input : {};
  const setting = isObject(audio.transcription) ? audio.transcription : isObject(session.input_audio_transcription) ? session.input_audio_transcription : {};
  return typeof setting.model === 'string' ? setting.model : undefined;
}

function doneEvent(response: HeldResponse, status: 'completed' | 'cancelled', usage: RealtimeUsage | 'omit'): PendingEvent {
  return {
    type: 'response.done',
    response: {
      id: response.responseId,
      object: 'realtime.response',
      status,
      ...(status === 'cancelled' ? { status_details: { type: 'cancelled', reason: 'client_cancelled' } } : {}),
      output: [{ id: response.itemId, type: 'message', role: 'assistant', content: [{ type: 'output_text', text: response.text }] }],
      ...(usage === 'omit' ? {} : { usage: usageObject(usage) }),
    },
  };
}

function usageObject(usage: RealtimeUsage): Record<string, unknown> {
  return {
    total_tokens: usage.input_tokens + usage.output_tokens,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    input_token_details: {
      text_tokens: usage.input_tokens - (usage.audio_input_tokens ?? 0),
      audio_tokens: usage.audio_input_tokens ?? 0,
      cached_tokens: usage.cached_tokens ?? 0,
      cached_tokens_details: { text_tokens: (usage.cached_tokens ?? 0) - (usage.cached_audio_tokens ?? 0), audio_tokens: usage.cached_audio_tokens ?? 0 },
    },
    output_token_details: { text_tokens: usage.output_tokens - (usage.audio_output_tokens ?? 0), audio_tokens: usage.audio_output_tokens ?? 0 },
  };
}

/** OpenAI's error body for a refused upgrade of `status`. */
function refusalBody(status: number): Record<string, unknown> {
  switch (status) {
    case 400:
      return openaiError('Invalid request.', 'invalid_request_error', null);
    case 401:
      return { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } };
    case 403:
      return openaiError('Country, region, or territory not supported', 'request_forbidden', 'unsupported_country_region_territory');
    case 404:
      return openaiError('The model does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found');
    case 429:
      return openaiError('Rate limit reached for requests. Please try again later.', 'requests', 'rate_limit_exceeded');
    case 503:
      return openaiError('The server is overloaded. Please try again later.', 'server_error', 'server_is_overloaded');
    default:
      return status >= 500
        ? openaiError('The server had an error while processing your request.', 'server_error', null)
        : openaiError(`fake realtime upstream refused the upgrade with ${status}`, 'invalid_request_error', null);
  }
}

function openaiError(message: string, type: string, code: string | null, param: string | null = null): Record<string, unknown> {
  return { error: { message, type, param, code } };
}

/** Writes a raw HTTP response on a socket that asked for an upgrade, then destroys it. */
function refuse(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  socket.once('finish', () => socket.destroy());
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      '\r\n' +
      text,
  );
}

function offeredProtocols(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

function listen(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}
