/**
 * A fake OpenAI account holder for the Conversations API and the Responses turns that use it, with OpenAI's
 * shapes (openai-openapi.yaml: ConversationResource, ConversationItemList, DeletedConversationResource,
 * ConversationItem; a `conversation` on `POST /v1/responses` reads its items back and appends the turn;
 * a response is stored on its key's account unless `store: false`, and read back, deleted, cancelled (a
 * foreground one: OpenAI's 400) and its input items listed on `/v1/responses/{id}…`;
 * `POST /v1/responses/compact` answers a CompactedResponse, of the conversation's items when the body names
 * one — the gateway routes a compaction's `conversation` as a turn's, so the fake reads it as a turn does).
 * Each key is an account of its own: a conversation made with one key is OpenAI's 404 to any other, as a
 * stored response is. Stateful, deterministic (ids numbered per server), no gateway code.
 */
import { startFakeServer, type FakeDialect, type FakeUpstream, type WireReply } from './fake-server.js';

export interface ConversationItem {
  id: string;
  type: string;
  [field: string]: unknown;
}

export interface StoredConversation {
  id: string;
  key: string;
  metadata: Record<string, string>;
  created_at: number;
  items: ConversationItem[];
  deleted: boolean;
}

export interface FakeConversationsOptions {
  /** The keys it accepts, each an account of its own. */
  keys: string[];
  /** Marks ids and answers (`conv_<name>_…`, "<name> read N items"), to tell two fakes apart. */
  name: string;
}

export interface StoredResponse {
  key: string;
  response: Record<string, unknown>;
  inputItems: ConversationItem[];
  deleted: boolean;
}

export type FakeOpenaiConversationsUpstream = FakeUpstream<FakeConversationsOptions> & { conversations: Map<string, StoredConversation>; responses: Map<string, StoredResponse> };

const json = (status: number, value: unknown): WireReply => ({ kind: 'whole', status, headers: { 'content-type': 'application/json' }, text: JSON.stringify(value) });
const openaiError = (status: number, message: string, param: string | null = null, code: string | null = null) => json(status, { error: { message, type: 'invalid_request_error', param, code } });
const notFound = (id: string) => openaiError(404, `Conversation with id '${id}' not found.`);

export async function startFakeOpenaiConversationsUpstream(options: FakeConversationsOptions): Promise<FakeOpenaiConversationsUpstream> {
  const conversations = new Map<string, StoredConversation>();
  const responses = new Map<string, StoredResponse>();
  let made = 0;
  const nextId = (prefix: string) => `${prefix}_${options.name}_${String(++made).padStart(6, '0')}`;
  const createdAt = () => 1_765_000_000 + made;

  /** An input item as the conversation keeps it: ids given, a string content made `input_text`. */
  const stored = (item: Record<string, unknown>): ConversationItem => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    if (type === 'message') {
      const content = typeof item.content === 'string' ? [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }] : item.content;
      return { id: nextId('msg'), type, status: 'completed', role: item.role, content };
    }
    return { ...item, id: typeof item.id === 'string' ? item.id : nextId('item'), type };
  };
  const resource = (conversation: StoredConversation) => ({ id: conversation.id, object: 'conversation', created_at: conversation.created_at, metadata: conversation.metadata });
  const list = (data: ConversationItem[], hasMore: boolean) => ({ object: 'list', data, first_id: data[0]?.id ?? '', last_id: data.at(-1)?.id ?? '', has_more: hasMore });

  const dialect: FakeDialect<FakeConversationsOptions> = {
    answer({ request, recorded, parsed, options: current }) {
      const auth = request.headers.authorization ?? '';
      const key = current.keys.find((candidate) => auth === `Bearer ${candidate}`);
      if (key === undefined) return openaiError(401, 'Incorrect API key provided.', null, 'invalid_api_key');
      const url = new URL(recorded.path, 'http://fake');
      const body = (parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? parsed.value : {}) as Record<string, unknown>;
      const method = recorded.method;
      const segments = url.pathname.split('/').slice(1).map(decodeURIComponent);
      const mine = (id: string) => {
        const conversation = conversations.get(id);
        return conversation !== undefined && conversation.key === key && !conversation.deleted ? conversation : undefined;
      };

      if (url.pathname === '/v1/responses' && method === 'POST') return respond(body, key);
      if (url.pathname === '/v1/responses/compact' && method === 'POST') return compact(body, key);
      if (segments[0] === 'v1' && segments[1] === 'responses' && segments.length >= 3) return storedResponse(method, segments, url.searchParams, key);
      if (segments[0] !== 'v1' || segments[1] !== 'conversations') return openaiError(404, `Invalid URL (${method} ${url.pathname})`);
      if (segments.length === 2 && method === 'POST') {
        const items = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]) : [];
        if (items.length > 20) return openaiError(400, "Invalid 'items': array too long. Expected an array with maximum length 20.", 'items', 'array_above_max_length');
        const conversation: StoredConversation = { id: nextId('conv'), key, metadata: (body.metadata as Record<string, string> | undefined) ?? {}, created_at: createdAt(), items: items.map(stored), deleted: false };
        conversations.set(conversation.id, conversation);
        return json(200, resource(conversation));
      }
      const conversation = mine(segments[2] ?? '');
      if (conversation === undefined) return notFound(segments[2] ?? '');
      if (segments.length === 3) {
        if (method === 'GET') return json(200, resource(conversation));
        if (method === 'POST') {
          if (body.metadata === undefined) return openaiError(400, "Missing required parameter: 'metadata'.", 'metadata', 'missing_required_parameter');
          conversation.metadata = body.metadata as Record<string, string>;
          return json(200, resource(conversation));
        }
        if (method === 'DELETE') {
          conversation.deleted = true;
          return json(200, { id: conversation.id, object: 'conversation.deleted', deleted: true });
        }
      }
      if (segments[3] === 'items' && segments.length === 4) {
        if (method === 'POST') {
          const items = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]).map(stored) : [];
          conversation.items.push(...items);
          return json(200, list(items, false));
        }
        if (method === 'GET') {
          const limit = Number(url.searchParams.get('limit') ?? 20);
          const ordered = url.searchParams.get('order') === 'asc' ? [...conversation.items] : [...conversation.items].reverse();
          const after = url.searchParams.get('after');
          const start = after === null ? 0 : ordered.findIndex((item) => item.id === after) + 1;
          const page = ordered.slice(start, start + limit);
          return json(200, list(page, start + limit < ordered.length));
        }
      }
      if (segments[3] === 'items' && segments.length === 5) {
        const index = conversation.items.findIndex((item) => item.id === segments[4]);
        if (index < 0) return openaiError(404, `Item with id '${segments[4]}' not found.`);
        if (method === 'GET') return json(200, conversation.items[index]);
        if (method === 'DELETE') {
          conversation.items.splice(index, 1);
          return json(200, resource(conversation));
        }
      }
      return openaiError(404, `Invalid URL (${method} ${url.pathname})`);
    },
    answerStatusFault: (fault) => ({ headers: { 'content-type': 'application/json' }, text: JSON.stringify(fault.body ?? { error: { message: `fake status ${fault.status}`, type: 'server_error', param: null, code: null } }) }),
    answerInternalError: (message) => ({ headers: { 'content-type': 'application/json' }, text: JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } }) }),
  };

  /** The conversation a Responses body names, when this key's account holds it; a 404 for one it does not. */
  function namedConversation(body: Record<string, unknown>, key: string): { conversation: StoredConversation | undefined } | WireReply {
    const named = body.conversation;
    const conversationId = typeof named === 'string' ? named : named !== null && typeof named === 'object' ? (named as { id?: unknown }).id : undefined;
    if (typeof conversationId !== 'string') return { conversation: undefined };
    const conversation = conversations.get(conversationId);
    if (conversation === undefined || conversation.key !== key || conversation.deleted) return notFound(conversationId);
    return { conversation };
  }

  /** `/v1/responses/{id}[/cancel|/input_items]` on a response this key's account stores. */
  function storedResponse(method: string, segments: string[], query: URLSearchParams, key: string): WireReply {
    const id = segments[2] ?? '';
    const held = responses.get(id);
    if (held === undefined || held.key !== key || held.deleted) return openaiError(404, `Response with id '${id}' not found.`);
    if (segments.length === 3 && method === 'GET') return json(200, held.response);
    if (segments.length === 3 && method === 'DELETE') {
      held.deleted = true;
      return json(200, { id, object: 'response', deleted: true });
    }
    if (segments[3] === 'cancel' && method === 'POST') return openaiError(400, 'Cannot cancel a synchronous response.');
    if (segments[3] === 'input_items' && method === 'GET') {
      const limit = Number(query.get('limit') ?? 20);
      const ordered = query.get('order') === 'asc' ? [...held.inputItems] : [...held.inputItems].reverse();
      const page = ordered.slice(0, limit);
      return json(200, list(page, limit < ordered.length));
    }
    return openaiError(404, `Invalid URL (${method} /${segments.join('/')})`);
  }

  /** A compaction (CompactedResponse): the conversation's user messages and the input's, then one compaction item. */
  function compact(body: Record<string, unknown>, key: string): WireReply {
    const found = namedConversation(body, key);
    if (!('conversation' in found)) return found;
    const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
    const userMessages = [...(found.conversation?.items ?? []).filter((item) => item.role === 'user'), ...input.map(stored)];
    return json(200, {
      id: nextId('resp'),
      object: 'response.compaction',
      created_at: createdAt(),
      output: [...userMessages, { id: nextId('cmp'), type: 'compaction', encrypted_content: `${options.name} compacted ${found.conversation?.items.length ?? 0} items` }],
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 14 },
    });
  }

  /** A Responses turn: with a `conversation`, its items are read back (counted in the answer) and the turn is appended. */
  function respond(body: Record<string, unknown>, key: string): WireReply {
    const found = namedConversation(body, key);
    if (!('conversation' in found)) return found;
    const conversation = found.conversation;
    const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
    const readBack = conversation?.items.length ?? 0;
    const message = { id: nextId('msg'), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: `${options.name} read ${readBack} items`, annotations: [] }] };
    if (conversation !== undefined) conversation.items.push(...input.map(stored), message);
    const response = {
      id: nextId('resp'),
      object: 'response',
      created_at: createdAt(),
      status: 'completed',
      model: body.model,
      output: [message],
      conversation: conversation === undefined ? null : { id: conversation.id },
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 14 },
    };
    if (body.store !== false) responses.set(response.id, { key, response, inputItems: input.map(stored), deleted: false });
    if (body.stream !== true) return json(200, response);
    let sequence = 0;
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
    const text = message.content[0]!.text;
    const at = { item_id: message.id, output_index: 0, content_index: 0 };
    const pieces = [
      event('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } }),
      event('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }),
      event('response.output_text.delta', { ...at, delta: text, logprobs: [] }),
      event('response.output_text.done', { ...at, text, logprobs: [] }),
      event('response.output_item.done', { output_index: 0, item: message }),
      event('response.completed', { response }),
    ];
    return { kind: 'stream', headers: { 'content-type': 'text/event-stream; charset=utf-8' }, pieces, chunkDelayMs: 0 };
  }

  const server = await startFakeServer(options, dialect);
  return Object.assign(server, { conversations, responses });
}
