import { bearerValue } from '../../auth/parse-api-key.js';

/** What a client's WebSocket upgrade to `/v1/realtime` asks for (protocols.md §9). */
export interface RealtimeHandshake {
  /** The key: `Authorization: Bearer`, else the `openai-insecure-api-key.<key>` subprotocol; undefined when none. */
  key: string | undefined;
  model: string | undefined;
  /** The client's `OpenAI-Beta` header (`realtime=v1` for the beta protocol), sent upstream as it came. */
  beta: string | undefined;
  /** The subprotocols offered; a browser client authenticates with them and expects `realtime` back. */
  protocols: string[];
  /**
   * Two keys that differ, of which the client meant one, not known which: more than one
   * `openai-insecure-api-key.<key>` subprotocol (`protocols`), or a Bearer key and a subprotocol key that is
   * another (`header_and_protocol`; the same key given both ways is no conflict). Undefined when there is none.
   */
  keyConflict: 'protocols' | 'header_and_protocol' | undefined;
}

const keyProtocolPrefix = 'openai-insecure-api-key.';

/** Pure: reads the upgrade request's headers and URL. */
export function readRealtimeHandshake(headers: Record<string, string | string[] | undefined>, url: string): RealtimeHandshake {
  const protocolHeader = headers['sec-websocket-protocol'];
  const protocols = (Array.isArray(protocolHeader) ? protocolHeader.join(',') : (protocolHeader ?? ''))
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
  const authorization = headers.authorization;
  const headerGiven = typeof authorization === 'string' && authorization.trim() !== '';
  const bearer = headerGiven ? bearerValue(authorization) : undefined;
  const fromHeader = headerGiven ? (bearer ?? '\u0000invalid') : undefined;
  const keyProtocols = protocols.filter((protocol) => protocol.startsWith(keyProtocolPrefix));
  const fromProtocol = keyProtocols[0]?.slice(keyProtocolPrefix.length);
  const protocolKey = fromProtocol === '' ? undefined : fromProtocol;
  const beta = headers['openai-beta'];
  const model = new URL(url, 'http://relay.invalid').searchParams.get('model') ?? undefined;
  // Only a Bearer key is compared: a header of another scheme is refused as no valid key anyway.
  const keyConflict = keyProtocols.length > 1 ? 'protocols' : bearer !== undefined && protocolKey !== undefined && protocolKey !== bearer ? 'header_and_protocol' : undefined;
  return { key: fromHeader ?? protocolKey, model: model === '' ? undefined : model, beta: typeof beta === 'string' && beta !== '' ? beta : undefined, protocols, keyConflict };
}

/**
 * The subprotocols offered upstream for a client that used them: `realtime` and the channel's key in
 * place of the client's, and the beta marker when the client sent it. Undefined for a header-auth client.
 */
export function upstreamProtocols(handshake: RealtimeHandshake, channelKey: string): string[] | undefined {
  if (!handshake.protocols.some((protocol) => protocol.startsWith(keyProtocolPrefix))) return undefined;
  return ['realtime', `${keyProtocolPrefix}${channelKey}`, ...handshake.protocols.filter((protocol) => protocol.startsWith('openai-beta.'))];
}

/**
 * Pure: why `ws` would refuse this upgrade (checked before anything is held: `ws` refuses such a handshake
 * itself, after the gateway would have opened the upstream). Undefined when it is a valid one.
 */
export function upgradeProblem(method: string | undefined, headers: Record<string, string | string[] | undefined>, protocols: readonly string[]): string | undefined {
  if (method !== 'GET') return 'A WebSocket upgrade must be a GET.';
  const upgrade = headers.upgrade;
  if (typeof upgrade !== 'string' || upgrade.toLowerCase() !== 'websocket') return 'The Upgrade header must be websocket.';
  const key = headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key)) return 'Sec-WebSocket-Key is missing or not a valid key.';
  const version = headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Sec-WebSocket-Version must be 13.';
  if (new Set(protocols).size !== protocols.length || protocols.some((protocol) => !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(protocol))) return 'Sec-WebSocket-Protocol is not a valid list of subprotocols.';
  return undefined;
}
