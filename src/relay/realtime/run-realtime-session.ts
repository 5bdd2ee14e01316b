import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { type RawData, type WebSocketServer } from 'ws';
import { authenticateToken } from '../../auth/authenticate-token.js';
import { tokenAllowsModel } from '../../auth/authorize-model.js';
import { assertNever, GatewayError } from '../../errors/gateway-error.js';
import { quoteClientText } from '../../errors/quote-client-text.js';
import { generateRequestId } from '../../http/generate-request-id.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import { admitRequest } from '../admit-request.js';
import { authorizeModel } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import { redactSecret } from '../redact-secret.js';
import { runFailover, type FailoverResult } from '../run-failover.js';
import { connectRealtimeUpstream, maxBufferedRealtimeBytes } from './connect-realtime-upstream.js';
import { formatResponseCancels } from './format-response-cancels.js';
import { GatewayEventQueue } from './gateway-event-queue.js';
import { audioDeltaOf, readAudioDeltaFrame, responseOutputAudioRate, sessionOutputAudioRate } from './read-realtime-audio.js';
import { conversationItemAdded, conversationItemDeleted } from './read-conversation-input.js';
import { readRealtimeUsage, refusedEventIdOf, responseIdOf, textDeltaOf } from './read-realtime-usage.js';
import { parseClientEvent, responseRequestOf } from './read-response-request.js';
import { refuseSessionUpdate, type SessionModels, type SessionUpdateRefusal } from './refuse-session-update.js';
import { readCreatedResponse } from './select-response-request.js';
import { RealtimeBilling } from './realtime-billing.js';
import { serverEventIds } from './server-event-ids.js';
import { settleOrRetry } from '../settle-or-retry.js';
import { readTranscriptionUsage, sessionTranscriptionModel } from './read-transcription.js';
import { readRealtimeHandshake, upgradeProblem, type RealtimeHandshake } from './realtime-handshake.js';
import { rejectUpgrade } from './reject-upgrade.js';
import { repeatedAuthorizationError } from '../../http/middleware/authenticate-caller.js';
import { refusesChannelCredentials } from '../../routing/refuses-channel-credentials.js';
import { channelCredentialsRefused } from '../channel-credentials-refused.js';
import { reportsChannelOutOfCredit } from '../../routing/reports-channel-out-of-credit.js';

const realtimeChannelTypes: ReadonlySet<string> = new Set(['openai']);
/** After the client leaves mid-response, how long the upstream has to report the cancelled response's usage. */
const cancelGraceMs = 5_000;
/** How often a session asks again whether its caller may still be served (and before each response.create). */
const accessCheckMs = 1_000;

export interface RealtimeSessions {
  services: RelayServices;
  server: WebSocketServer;
  /** Open client sockets, closed when the gateway shuts down. */
  open: Set<WebSocket>;
  /** Sessions relaying: each resolves once it ended and its holds are settled (shutdown waits for them). */
  running: Set<Promise<void>>;
  /** The gateway is shutting down: a session still being opened is given up (its hold released). */
  closing: boolean;
  /** The client's address, by the TRUST_PROXY rule the HTTP routes follow (per-IP limits, the log). */
  clientAddress(request: IncomingMessage): string;
}

/**
 * `GET /v1/realtime` upgraded to a WebSocket (spec §4.5, protocols.md §9): authenticate (Bearer, or the
 * `openai-insecure-api-key.` subprotocol), admit the model (its price, limits and the first hold), open the
 * upstream session on an OpenAI channel (failing over like any request), then accept the client and relay
 * every frame both ways as it came. Refusals before the upgrade are HTTP errors in OpenAI's envelope.
 * The handshake is a request in flight until the client is accepted; then each settlement is.
 */
export function handleRealtimeUpgrade(sessions: RealtimeSessions, request: IncomingMessage, socket: Duplex, head: Buffer): void {
  const { services } = sessions;
  const requestId = generateRequestId(services.now());
  void services.inFlight
    .track(() => runSession(sessions, requestId, request, socket, head))
    .catch((error: unknown) => rejectUpgrade(socket, error, requestId));
}

async function runSession(sessions: RealtimeSessions, requestId: string, request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const { services } = sessions;
  const startedAt = services.now();
  const handshake = readRealtimeHandshake(request.headers, request.url ?? '/');
  const malformed = upgradeProblem(request.method, request.headers, handshake.protocols);
  if (malformed !== undefined) throw new GatewayError('invalid_request', malformed);
  // From here the client may leave at any moment: every step after admission checks it.
  let clientGone = false;
  const onSocketClose = () => (clientGone = true);
  socket.once('close', onSocketClose);
  // Node keeps the first of two Authorization lines: the key the client meant is not known (authenticate-caller.ts).
  const repeated = repeatedAuthorizationError(request.rawHeaders, 'openai');
  if (repeated !== undefined) throw repeated;
  if (handshake.keyConflict !== undefined) throw new GatewayError('invalid_api_key', keyConflictMessage(handshake.keyConflict));
  const authenticated = authenticateToken(services.catalog.snapshot, handshake.key, Math.floor(services.now() / 1000));
  if (!authenticated.ok) throw new GatewayError(authenticated.code, authenticated.message);
  const caller = authenticated.caller;
  const model = handshake.model;
  if (model === undefined) throw new GatewayError('invalid_request', "Missing required parameter: 'model'.", { param: 'model' });
  const query = { group: caller.group, model, pinnedChannelId: caller.pinnedChannelId, channelTypes: realtimeChannelTypes };
  authorizeModel(services, caller, query);
  const ip = sessions.clientAddress(request);
  // What one hold covers besides the model's output budget: a conversation of this many input tokens.
  const holdInputTokens = services.catalog.snapshot.settings.realtimeHoldInputTokens;
  // The tokens a hold covers, as admission estimates them: what a response whose usage cannot be counted counts.
  const holdTokens = holdInputTokens + services.catalog.snapshot.outputBudgetFor(model);
  const admission = await admitRequest(services, { requestId, caller, model, estimatedPromptTokens: holdInputTokens, countPromptTokens: () => Promise.resolve(0), promptImageTokens: 0, maxOutputTokens: undefined, ip });

  let upstreamModel = model;
  let channelKey = '';
  const result = await runFailover(services, {
    query,
    retryTimes: services.catalog.snapshot.settings.retryTimes,
    shouldStop: () => clientGone,
    attempt: async (channel, key) => {
      const mapping = resolveModelMapping(channel.modelMapping, model);
      upstreamModel = mapping.ok ? mapping.upstreamModel : model;
      channelKey = key;
      const connection = await connectRealtimeUpstream(channel, key, upstreamModel, handshake);
      return connection.ok ? { kind: 'served', value: connection.socket, status: 101 } : { kind: 'failed', failure: connection.failure };
    },
  }).catch(async (error: unknown) => {
    // Nothing was relayed: the hold is released before the error is answered.
    await settleOrRetry(services, requestId, { actualAmount: 0, channelId: undefined });
    throw error;
  });
  socket.off('close', onSocketClose);
  // Nobody to relay to (the client left, or the gateway is shutting down): the hold is released.
  const abandoned = clientGone || sessions.closing;
  if (result.kind === 'served' && abandoned) result.value.terminate();
  if (result.kind !== 'served' || abandoned) {
    const billing = new RealtimeBilling(services, { requestId, caller, admission, model, upstreamModel, channelId: 0, ip, holdTokens, attempts: result.kind === 'no_channel' ? [] : result.attempts, refusal: () => undefined });
    if (sessions.closing || result.kind === 'served') {
      await billing.finish(undefined);
      if (sessions.closing) throw new GatewayError('no_available_channel', 'The gateway is shutting down.');
      return;
    }
    const refused = connectFailure(result);
    await billing.refused(refused, startedAt);
    throw refused;
  }

  const upstream = result.value;
  const refusal = callerRefusalReader(services, handshake.key, model);
  const billing = new RealtimeBilling(services, { requestId, caller, admission, model, upstreamModel, channelId: result.channel.id, ip, holdTokens, attempts: result.attempts, refusal });
  const client = await acceptClient(sessions.server, request, socket, head);
  if (client === undefined) {
    // ws refused the handshake after all (or the socket died first): it never calls back, it closes the socket.
    upstream.terminate();
    await billing.finish(undefined);
    return;
  }
  // A session is not one request in flight (it may last hours): its settlements are, each on its own.
  sessions.open.add(client);
  const models: SessionModels = {
    sessionModels: [model, upstreamModel],
    // Read again at each update (a rare frame): model_limits narrowed since the handshake apply.
    allowsModel: (name) => {
      const again = authenticateToken(services.catalog.snapshot, handshake.key, Math.floor(services.now() / 1000));
      return again.ok && tokenAllowsModel(again.caller, name);
    },
  };
  const relaying: Promise<void> = relayFrames(client, upstream, billing, requestId, channelKey, models).finally(() => {
    sessions.open.delete(client);
    sessions.running.delete(relaying);
  });
  sessions.running.add(relaying);
}

/** Why an upgrade giving two different keys is refused (a 401: which key the client meant is not known). */
function keyConflictMessage(conflict: NonNullable<RealtimeHandshake['keyConflict']>): string {
  switch (conflict) {
    case 'protocols':
      return 'The API key is given in more than one `openai-insecure-api-key` subprotocol; send one API key (as `Authorization: Bearer`).';
    case 'header_and_protocol':
      return 'The API key in `Authorization: Bearer` differs from the one in the `openai-insecure-api-key` subprotocol; send one API key (as `Authorization: Bearer`).';
    default:
      return assertNever(conflict);
  }
}

/** The client's socket upgraded, or undefined when `ws` refused it (it then closes the socket without calling back). */
function acceptClient(server: WebSocketServer, request: IncomingMessage, socket: Duplex, head: Buffer): Promise<WebSocket | undefined> {
  return new Promise((resolve) => {
    if (socket.destroyed) {
      resolve(undefined);
      return;
    }
    const onClose = () => resolve(undefined);
    socket.once('close', onClose);
    server.handleUpgrade(request, socket, head, (client) => {
      socket.off('close', onClose);
      resolve(client);
    });
  });
}

/** Why no upstream session could be opened, as the client is told (before its upgrade). */
function connectFailure(result: Exclude<FailoverResult<WebSocket>, { kind: 'served' }>): GatewayError {
  if (result.kind === 'no_channel') return new GatewayError('no_available_channel', 'No channel is available for this model right now.');
  const { failure } = result;
  // The upstream's 401/403 is about the channel's key, not the client's: a 502 to the client.
  // Its message is the log's (the refused upgrade's row, its attempts), never the client's: the same words as
  // the text routes (channel-credentials-refused.ts).
  if (refusesChannelCredentials(failure)) return channelCredentialsRefused('upstream', failure.kind === 'status' ? failure.status : 502, { logDetail: failure.message });
  // The channel's account out of credit: not the client's balance (which would be a 402 in quota words).
  if (reportsChannelOutOfCredit(failure)) return new GatewayError('upstream_out_of_credit', `The upstream says the account of the gateway's channel is out of credit or disabled (HTTP ${failure.kind === 'status' ? failure.status : 502}).`);
  const status = failure.kind === 'status' && failure.status >= 400 && failure.status < 500 ? failure.status : 502;
  return new GatewayError(status === 502 ? 'upstream_error' : 'invalid_request', failure.message, { status });
}

/**
 * Relays both ways until either side closes; bills each response as it ends; resolves once all is settled.
 * A text frame that quotes the channel's key reaches the client with the key masked.
 */
function relayFrames(client: WebSocket, upstream: WebSocket, billing: RealtimeBilling, requestId: string, channelKey: string, models: SessionModels): Promise<void> {
  return new Promise<void>((resolve) => {
    let ending: string | undefined;
    let onResponsesDone: (() => void) | undefined;
    /** The responses under way were asked to stop: one named from now on is cancelled by its id too. */
    let cancelling = false;
    /** The id of the next server event the gateway makes up (each its own). */
    const nextEventId = serverEventIds(requestId);
    /** The gateway's own events wait for the upstream's first one (its `session.created`) to reach the client. */
    const ownEvents = new GatewayEventQueue(maxBufferedRealtimeBytes);
    const toClient = (text: string) => {
      if (client.readyState === WebSocket.OPEN) client.send(text);
    };
    /** Sends (or holds) an event the gateway made; false when the client made it hold more than it may. */
    const sendOwnEvent = (event: Record<string, unknown>): boolean => ownEvents.offer(JSON.stringify(event), toClient);
    /**
     * Closes the client. The gateway's events still held go first: a session that ends before the
     * upstream's first event (its key disabled, the upstream gone) still tells the client why in an `error`
     * event, which a client SDK shows (a close frame's reason it does not).
     */
    const closeClient = (code: number, reason: string) => {
      ownEvents.end(toClient);
      closeSocket(client, code, reason);
    };

    let closeCode = 1000;
    let closeReason = '';
    const finish = (reason: string | undefined) => {
      if (ending !== undefined) return;
      ending = reason ?? 'closed';
      void (async () => {
        // A client that left mid-response: ask the upstream to stop and wait (briefly) for the response's usage.
        if (billing.responses.any && upstream.readyState === WebSocket.OPEN && client.readyState !== WebSocket.OPEN) {
          await new Promise<void>((done) => {
            const timer = setTimeout(done, cancelGraceMs);
            onResponsesDone = () => {
              clearTimeout(timer);
              done();
            };
            cancelling = true;
            for (const frame of formatResponseCancels(billing.responses.ids)) upstream.send(frame);
          });
        }
        closeSocket(upstream, 1000, '');
        closeClient(closeCode, closeReason);
        // What the upstream sent before it saw the close (a response.done, a transcription) still arrives
        // and is billed: the session's end is settled once the upstream has closed (or the grace is over).
        await closedOrAfter(upstream, cancelGraceMs);
        await billing.finish(reason);
        resolve();
      })();
    };

    upstream.on('message', (data: RawData, isBinary: boolean) => {
      const frame = data as Buffer;
      if (client.readyState === WebSocket.OPEN) {
        client.send(isBinary ? frame : withoutSecret(frame, channelKey), { binary: isBinary });
        if (ownEvents.waiting) ownEvents.release(toClient);
        // A client that does not read: cut off (a close frame would queue behind what it does not read),
        // as one that left — the responses under way are cancelled and billed.
        if (client.bufferedAmount > maxBufferedRealtimeBytes) {
          client.terminate();
          finish('the client did not read what it was sent');
        }
      }
      if (isBinary) return;
      // Audio deltas (most of a session's bytes) are read from their bytes, their base64 neither copied
      // out nor parsed: the audio a cut response produced is billed by its length.
      const audio = readAudioDeltaFrame(frame);
      if (audio !== undefined) {
        billing.responses.audioDelta(audio.responseId, audio.bytes);
        return;
      }
      let event: unknown;
      try {
        event = JSON.parse(frame.toString('utf8'));
      } catch {
        return;
      }
      readUpstreamEvent(event);
    });

    /** What billing reads of an upstream event, by its `type` (after any ending too: usage still on its way is billed). */
    const readUpstreamEvent = (event: unknown) => {
      const type = (event as { type?: unknown } | null)?.type;
      if (type === 'response.created') {
        const responseId = responseIdOf(event);
        billing.responses.created(responseId, responseOutputAudioRate(event), readCreatedResponse(event));
        // Asked for before the client left and named only now: a cancel without an id stops no
        // out-of-band response, so it is cancelled by its id as well.
        if (cancelling && responseId !== undefined && upstream.readyState === WebSocket.OPEN) for (const frame of formatResponseCancels([responseId])) upstream.send(frame);
        return;
      }
      if (type === 'error') {
        // A response.create the upstream refused (one already under way, a bad parameter): nothing comes of it.
        const refused = refusedEventIdOf(event);
        if (refused !== undefined) billing.responses.refused(refused);
        if (!billing.responses.any) onResponsesDone?.();
        return;
      }
      if (type === 'response.done') {
        void billing.responseDone(readRealtimeUsage(event), responseIdOf(event), readCreatedResponse(event)).then(
          (heldAgain) => {
            if (!billing.responses.any) onResponsesDone?.();
            if (!heldAgain && ending === undefined) endRefused(client, { send: sendOwnEvent, close: closeClient }, requestId, nextEventId(), billing.refusal, finish);
          },
          () => {
            // The database failed the next hold: the gateway cannot go on serving the session (1011).
            closeCode = 1011;
            finish('the response could not be billed');
          },
        );
        return;
      }
      if (type === 'conversation.item.input_audio_transcription.completed') {
        const usage = readTranscriptionUsage(event);
        if (usage === undefined) return;
        void billing.transcriptionDone(usage).then(
          (heldAgain) => {
            if (!heldAgain && ending === undefined) endRefused(client, { send: sendOwnEvent, close: closeClient }, requestId, nextEventId(), billing.refusal, finish);
          },
          () => {
            // The database failed the next hold: the gateway cannot go on serving the session (1011).
            closeCode = 1011;
            finish('the transcription could not be billed');
          },
        );
        return;
      }
      // An audio delta its bytes did not tell (another key order, whitespace, escapes): read parsed.
      const audio = audioDeltaOf(event);
      if (audio !== undefined) {
        billing.responses.audioDelta(audio.responseId, audio.bytes);
        return;
      }
      const delta = textDeltaOf(event);
      if (delta !== undefined) {
        billing.responses.textDelta(delta.responseId, delta.text);
        return;
      }
      const item = conversationItemAdded(event);
      if (item !== undefined) {
        billing.responses.itemAdded(item.itemId, item.text);
        return;
      }
      const deleted = conversationItemDeleted(event);
      if (deleted !== undefined) {
        billing.responses.itemDeleted(deleted);
        return;
      }
      const model = sessionTranscriptionModel(event);
      if (model !== undefined) billing.transcriptionModelSet(model);
      const outputAudioRate = sessionOutputAudioRate(event);
      if (outputAudioRate !== undefined) billing.responses.outputAudioRateSet(outputAudioRate);
    };
    client.on('message', (data: RawData, isBinary: boolean) => {
      const frame = data as Buffer;
      // Every frame asks whether the caller may still be served (a lookup, redone only when the catalog
      // changed or the key's expiry passed): a key disabled mid-session buys nothing more.
      if (ending === undefined) {
        const refusal = billing.checkAccess();
        if (refusal !== undefined) {
          endRefused(client, { send: sendOwnEvent, close: closeClient }, requestId, nextEventId(), refusal, finish);
          return;
        }
      }
      // Out of quota: nothing more reaches the upstream (the session is ending).
      if (upstream.readyState === WebSocket.OPEN && !billing.exhausted) {
        const event = isBinary ? undefined : parseClientEvent(frame);
        // A session.update naming a model the session was not opened for, or a transcription model the key
        // may not use, or one whose models are not strings or whose frame names a key twice, is answered as
        // OpenAI answers a bad update (an `error` event) and not sent on.
        const refused = event === undefined ? undefined : refuseSessionUpdate(event, models, () => frame.toString('utf8'));
        if (refused !== undefined) {
          // Before the upstream's first event reached the client this waits for it (the gateway's queue):
          // a client that made it hold more than it may hold unsent (bytes) is closed with 1008, after what
          // was held and this one's own error (closeClient).
          const answer = sessionUpdateError(refused, event?.event_id, requestId, nextEventId());
          if (!sendOwnEvent(answer)) {
            ownEvents.end(toClient);
            toClient(JSON.stringify(answer));
            closeCode = 1008;
            closeReason = 'too many refused events before the session started';
            finish(closeReason);
          }
          return;
        }
        upstream.send(frame, { binary: isBinary });
        // A response asked for is under way from here, though the upstream has not named it yet: a client
        // that leaves before it does still gets it cancelled, waited for and billed.
        const asked = event === undefined ? undefined : responseRequestOf(event);
        if (asked !== undefined) billing.responses.asked(asked);
        // A client sending far faster than the upstream reads: the session ends (the upstream cut off, its
        // responses under way billed as cut).
        if (upstream.bufferedAmount > maxBufferedRealtimeBytes) {
          upstream.terminate();
          closeCode = 1008;
          finish('the client sent faster than the upstream reads');
        }
      }
    });
    upstream.on('close', (code: number) => {
      // The upstream's own code reaches the client (1011: it failed); codes that may not be sent become 1011.
      closeCode = code === 1000 || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999) ? code : 1011;
      finish('the upstream closed the session');
    });
    client.on('close', () => finish(undefined));
    upstream.on('error', () => {
      // ws emits `error` before `close` when the upstream breaks the protocol (a text frame that is not
      // UTF-8, a frame over the size limit): the client is told the upstream failed, not a normal end.
      closeCode = 1011;
      finish('the upstream session failed');
    });
    client.on('error', () => finish('the client session failed'));
    upstream.resume();
  });
}

/**
 * The `error` event (its own `eventId`) answering a refused session.update, naming the client's event in
 * `error.event_id` as OpenAI's errors do.
 */
function sessionUpdateError(refused: SessionUpdateRefusal, clientEventId: unknown, requestId: string, eventId: string): Record<string, unknown> {
  return {
    type: 'error',
    event_id: eventId,
    error: { type: 'invalid_request_error', code: refused.code, message: `${refused.message} (request id: ${requestId})`, param: refused.param, event_id: typeof clientEventId === 'string' ? clientEventId : null },
  };
}

/** The frame, or a copy with `secret` masked when it quotes it (a search of the bytes: most frames do not). */
function withoutSecret(frame: Buffer, secret: string): Buffer {
  if (secret.length < 8 || !frame.includes(secret)) return frame;
  return Buffer.from(redactSecret(frame.toString('utf8'), secret), 'utf8');
}

/** How the gateway answers its client in a session: its own events (sent, or held until the upstream's first), and the close (after what is held). */
interface OwnEvents {
  send(event: Record<string, unknown>): boolean;
  close(code: number, reason: string): void;
}

/**
 * The key or the wallet cannot hold the next response, or the caller was refused since the session opened
 * (`refusal`): the client is told, in the session (an `error` event of id `eventId`: held when the upstream's
 * first event has not reached the client, and sent before the close all the same), and it ends.
 */
function endRefused(client: WebSocket, own: OwnEvents, requestId: string, eventId: string, refusal: GatewayError | undefined, end: (reason: string) => void): void {
  if (client.readyState === WebSocket.OPEN) {
    const error =
      refusal === undefined
        ? { type: 'insufficient_quota', code: 'insufficient_quota', message: `Insufficient quota: this API key or your account cannot cover another response (request id: ${requestId}). The session is closed.` }
        : { type: refusal.status === 401 ? 'invalid_request_error' : 'permission_error', code: refusal.code, message: `${refusal.message} (request id: ${requestId}). The session is closed.` };
    own.send({ type: 'error', event_id: eventId, error: { ...error, param: null, event_id: null } });
  }
  const reason = refusal === undefined ? 'insufficient quota' : 'access withdrawn';
  own.close(1008, reason);
  end(reason);
}

/**
 * Why the caller may no longer use `model` (its key or user disabled, expired or limited since the
 * handshake); undefined while it may. The answer is kept while the catalog snapshot is the same one and the
 * key has not expired: nothing else can change it.
 */
function callerRefusalReader(services: RelayServices, key: string | undefined, model: string): () => GatewayError | undefined {
  let checkedSnapshot: unknown;
  let validUntilSeconds = 0;
  return () => {
    const snapshot = services.catalog.snapshot;
    const nowSeconds = Math.floor(services.now() / 1000);
    if (snapshot === checkedSnapshot && nowSeconds < validUntilSeconds) return undefined;
    const again = authenticateToken(snapshot, key, nowSeconds);
    if (!again.ok) return new GatewayError(again.code, again.message);
    if (!tokenAllowsModel(again.caller, model)) return new GatewayError('model_not_allowed', `This API key may not use model ${quoteClientText(model)}.`);
    checkedSnapshot = snapshot;
    validUntilSeconds = again.caller.token.expiresAt > 0 ? again.caller.token.expiresAt : Number.POSITIVE_INFINITY;
    return undefined;
  };
}

/** Resolves once `socket` has closed, or after `ms`. */
function closedOrAfter(socket: WebSocket, ms: number): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function closeSocket(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(code, reason);
}
