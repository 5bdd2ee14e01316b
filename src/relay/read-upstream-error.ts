import { redactSecret } from './redact-secret.js';
import type { ChunkSource } from './read-body-chunks.js';
import { readBoundedBody } from './read-bounded-body.js';
import type { UpstreamErrorReason } from '../routing/classify-upstream-failure.js';
import { readUpstreamErrorReason } from './read-upstream-error-reason.js';

/** How much of an upstream error body is read: enough for any real error, bounded against abuse. */
export const maxErrorBodyBytes = 64 * 1024;

export interface UpstreamErrorBody {
  /** The upstream's message, for the client, the retry policy and the log. */
  message: string;
  /** The vendor's own error code (Anthropic's `error.type`, OpenAI's `error.code` or `type`, Google's `error.status`). */
  code?: string;
  /** The parsed JSON body when the upstream sent JSON. */
  json: unknown;
  text: string;
  /** What the body says of the channel's key or account, for the retry policy (readUpstreamErrorReason). */
  reason?: UpstreamErrorReason;
  /** The upstream's `retry-after` (429, 503), for the client's own backoff. */
  retryAfter?: string;
}

/** Pure: pulls a message out of an OpenAI, Anthropic or Gemini error body, or plain text. */
export function readUpstreamErrorBody(text: string, status: number): UpstreamErrorBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const message = messageOf(json) ?? (text.trim().slice(0, 500) || `Upstream answered HTTP ${status}`);
  const reason = readUpstreamErrorReason(status, json, message);
  const code = codeOf(json);
  return { message, json, text, ...(code === undefined ? {} : { code }), ...(reason === undefined ? {} : { reason }) };
}

/** OpenAI's `error.code` (its `type` when the code is null), Google's `error.status`, Anthropic's `error.type`. */
function codeOf(json: unknown): string | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const error = (json as Record<string, unknown>).error;
  if (error === null || typeof error !== 'object') return undefined;
  const { code, status, type } = error as Record<string, unknown>;
  for (const word of [code, status, type]) if (typeof word === 'string' && word !== '') return word;
  return undefined;
}

function messageOf(json: unknown): string | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const { error, message } = json as Record<string, unknown>;
  if (typeof error === 'string') return error;
  if (error !== null && typeof error === 'object') {
    const inner = (error as Record<string, unknown>).message;
    if (typeof inner === 'string') return inner;
  }
  return typeof message === 'string' ? message : undefined;
}

/**
 * An upstream answered with an error status: its body read (bounded), as a failed attempt, with the
 * channel key it was called with masked wherever the upstream quoted it.
 */
export async function failedAttemptFrom(
  response: { body: ChunkSource; statusCode: number; retryAfter?: string },
  key: string,
): Promise<{ kind: 'failed'; failure: { kind: 'status'; status: number; message: string; reason?: UpstreamErrorReason }; errorBody: UpstreamErrorBody }> {
  const status = response.statusCode;
  const text = redactSecret(await readBoundedBody(response.body, maxErrorBodyBytes).then(({ bytes }) => bytes.toString('utf8'), () => ''), key);
  const errorBody = readUpstreamErrorBody(text, status);
  if (response.retryAfter !== undefined) errorBody.retryAfter = response.retryAfter;
  const failure = { kind: 'status' as const, status, message: errorBody.message, ...(errorBody.reason === undefined ? {} : { reason: errorBody.reason }) };
  return { kind: 'failed', failure, errorBody };
}

