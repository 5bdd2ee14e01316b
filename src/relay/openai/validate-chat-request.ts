import { maxOutputTokensLimit } from '../../canonical/canonical-request.js';
import { invalidParameter, missingParameter } from '../validate-body.js';
import { chatMessageRoles, maxChatChoices, unknownRoleMessage } from './openai-endpoints.js';

const knownRoles = new Set<unknown>(chatMessageRoles);

/**
 * The Chat Completions body check of the hot path, by hand: the fields the gateway reads (model, messages
 * and their roles, stream, stream_options, the output budgets, the number of choices, tools), everything else passes through
 * unchecked. It throws the same 400 as the zod schema `openaiEndpoints.chat.schema` would (same first
 * failing field, message and param; validate-chat-request.test.ts holds the two side by side), at a
 * fraction of its cost per request.
 */
export function validateChatRequest(body: Record<string, unknown>): void {
  const { model, messages } = body;
  if (model === undefined) throw missingParameter('model');
  if (typeof model !== 'string') throw expected('model', 'string', model);
  if (model === '') throw invalidParameter('model', 'model must not be empty');

  if (messages === undefined) throw missingParameter('messages');
  if (!Array.isArray(messages)) throw expected('messages', 'array', messages);
  if (messages.length === 0) throw invalidParameter('messages', 'messages must not be empty');
  for (let index = 0; index < messages.length; index += 1) {
    const message: unknown = messages[index];
    if (!isObject(message)) throw expected(`messages.${index}`, 'object', message);
    const role = message.role;
    if (role === undefined) throw missingParameter(`messages.${index}.role`);
    if (typeof role !== 'string') throw expected(`messages.${index}.role`, 'string', role);
    if (role === '') throw invalidParameter(`messages.${index}.role`, 'String must contain at least 1 character(s)');
    if (!knownRoles.has(role)) throw invalidParameter(`messages.${index}.role`, unknownRoleMessage(role));
    const content = message.content;
    if (typeof content === 'string' || Array.isArray(content)) continue;
    // Only an assistant's turn (tool calls instead) and a function's result may come without content.
    if ((content === undefined || content === null) && (role === 'assistant' || role === 'function')) continue;
    if (content === undefined) throw missingParameter(`messages.${index}.content`);
    throw expected(`messages.${index}.content`, 'string or array', content);
  }

  const { stream } = body;
  if (stream !== undefined && typeof stream !== 'boolean') throw expected('stream', 'boolean', stream);
  checkTokenBudget('max_tokens', body.max_tokens);
  checkTokenBudget('max_completion_tokens', body.max_completion_tokens);
  checkChoices(body.n);

  const { tools } = body;
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw expected('tools', 'array', tools);
    for (let index = 0; index < tools.length; index += 1) {
      const tool: unknown = tools[index];
      if (!isObject(tool)) throw expected(`tools.${index}`, 'object', tool);
      if (tool.type === undefined) throw missingParameter(`tools.${index}.type`);
      if (typeof tool.type !== 'string') throw expected(`tools.${index}.type`, 'string', tool.type);
    }
  }

  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null) {
    if (!isObject(streamOptions)) throw expected('stream_options', 'object', streamOptions);
    const includeUsage = streamOptions.include_usage;
    if (includeUsage !== undefined && typeof includeUsage !== 'boolean') throw expected('stream_options.include_usage', 'boolean', includeUsage);
  }
}

/** A positive integer up to {@link maxOutputTokensLimit}, or absent / null (0 is refused, as OpenAI refuses it). */
function checkTokenBudget(param: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || Number.isNaN(value)) throw expected(param, 'number', value);
  if (!Number.isInteger(value)) throw invalidParameter(param, 'Expected integer, received float');
  if (value <= 0) throw invalidParameter(param, 'Number must be greater than 0');
  if (value > maxOutputTokensLimit) throw invalidParameter(param, `Number must be less than or equal to ${maxOutputTokensLimit}`);
}

/** `n`: a whole number of choices from 1 to {@link maxChatChoices} (OpenAI's limit), or absent / null. */
function checkChoices(value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || Number.isNaN(value)) throw expected('n', 'number', value);
  if (!Number.isInteger(value)) throw invalidParameter('n', 'Expected integer, received float');
  if (value <= 0) throw invalidParameter('n', 'Number must be greater than 0');
  if (value > maxChatChoices) throw invalidParameter('n', `Number must be less than or equal to ${maxChatChoices}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function expected(param: string, type: string, received: unknown) {
  return invalidParameter(param, `Expected ${type}, received ${receivedType(received)}`);
}

/** The type names zod reports for JSON values. */
function receivedType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'nan';
  return typeof value;
}
