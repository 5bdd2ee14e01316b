import type { CanonicalMessage, CanonicalRequest } from '../canonical/canonical-request.js';
import type { CanonicalResponse } from '../canonical/canonical-response.js';
import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import { shortHash } from '../convert/shared/short-hash.js';

/** The tool names OpenAI (Chat and Responses) and Anthropic take: `^[a-zA-Z0-9_-]{1,64}$`. */
const acceptedName = /^[A-Za-z0-9_-]{1,64}$/;

/** Both directions of the renaming: client name → upstream name, and back. */
export interface ToolNameAliases {
  toUpstream: ReadonlyMap<string, string>;
  toClient: ReadonlyMap<string, string>;
}

/**
 * Pure: the aliases a request's tool names need on an OpenAI or Anthropic upstream, or undefined when every
 * name is taken as it is. Gemini allows dots and colons in function names (`weather.get`, MCP's
 * `server:tool`) that OpenAI and Anthropic refuse with a 400; such a name is sent as its other characters
 * replaced with `_`, cut to leave room, and a hash of the whole name appended — the same alias for the
 * declaration, the history's calls and results and a named (or allowed) tool choice — and every call the upstream makes
 * under an alias reaches the client under its own name.
 */
export function toolNameAliases(request: CanonicalRequest): ToolNameAliases | undefined {
  const names = new Set<string>(request.tools.map((tool) => tool.name));
  if (request.toolChoice?.type === 'tool') names.add(request.toolChoice.name);
  if (request.toolChoice?.type === 'allowed-tools') for (const name of request.toolChoice.names) names.add(name);
  for (const message of request.messages) for (const name of namesIn(message)) names.add(name);
  const toUpstream = new Map<string, string>();
  for (const name of names) if (!acceptedName.test(name)) toUpstream.set(name, aliasOf(name));
  if (toUpstream.size === 0) return undefined;
  return { toUpstream, toClient: new Map([...toUpstream].map(([name, alias]) => [alias, name])) };
}

/** Pure: the request with every aliased tool name replaced. */
export function withToolAliases(request: CanonicalRequest, aliases: ToolNameAliases): CanonicalRequest {
  const rename = (name: string) => aliases.toUpstream.get(name) ?? name;
  return {
    ...request,
    tools: request.tools.map((tool) => ({ ...tool, name: rename(tool.name) })),
    ...(request.toolChoice?.type === 'tool' ? { toolChoice: { type: 'tool', name: rename(request.toolChoice.name) } } : {}),
    ...(request.toolChoice?.type === 'allowed-tools' ? { toolChoice: { ...request.toolChoice, names: request.toolChoice.names.map(rename) } } : {}),
    messages: request.messages.map((message): CanonicalMessage => {
      if (message.role === 'assistant') return { ...message, content: message.content.map((part) => (part.type === 'tool-call' ? { ...part, name: rename(part.name) } : part)) };
      if (message.role === 'tool') return { ...message, content: message.content.map((part) => (part.name === undefined ? part : { ...part, name: rename(part.name) })) };
      return message;
    }),
  };
}

/** Pure: a whole answer with the upstream's aliased tool names back to the client's. */
export function responseWithClientToolNames(response: CanonicalResponse, aliases: ToolNameAliases): CanonicalResponse {
  return { ...response, content: response.content.map((part) => (part.type === 'tool-call' ? { ...part, name: aliases.toClient.get(part.name) ?? part.name } : part)) };
}

/** Pure: a stream part with an aliased tool name back to the client's. */
export function partWithClientToolName(part: CanonicalStreamPart, aliases: ToolNameAliases): CanonicalStreamPart {
  if (part.type !== 'tool-call-start') return part;
  const name = aliases.toClient.get(part.name);
  return name === undefined ? part : { ...part, name };
}

function namesIn(message: CanonicalMessage): string[] {
  if (message.role === 'assistant') return message.content.flatMap((part) => (part.type === 'tool-call' ? [part.name] : []));
  if (message.role === 'tool') return message.content.flatMap((part) => (part.name === undefined ? [] : [part.name]));
  return [];
}

function aliasOf(name: string): string {
  const hash = shortHash(name);
  const base = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 63 - hash.length);
  return `${base}_${hash}`;
}
