import { isRecord } from '../convert/shared/is-record.js';
import type { UpstreamErrorReason } from '../routing/classify-upstream-failure.js';

/**
 * Pure: whether an upstream error body (`json` when it was JSON; `upstreamMessage`, its message or text)
 * says the channel's key was refused or its account cannot serve
 * anything — read from fields the client cannot write, since an upstream's message may quote the request
 * (OpenAI's 400 `Invalid value: '<what the client sent>'`): OpenAI's `error.code` and `error.type`,
 * Google's `error.details[].reason` and `error.status`, Anthropic's `error.type`. The message counts only
 * by how it starts, and only where it cannot be the client's text: Anthropic's out-of-credit 400
 * (`invalid_request_error` starting "Your credit balance is too low"), and 401, 402, 403 and 429 answers,
 * which refuse the caller before reading the request. Undefined for anything else.
 */
export function readUpstreamErrorReason(status: number, json: unknown, upstreamMessage: string): UpstreamErrorReason | undefined {
  const error = recordOf(recordOf(json)?.error);
  const code = stringOf(error?.code);
  const type = stringOf(error?.type);
  const message = upstreamMessage.trimStart().toLowerCase();
  if (code !== undefined && keyRejectedCodes.has(code)) return 'key_rejected';
  if ((code !== undefined && accountDeadCodes.has(code)) || type === 'insufficient_quota' || type === 'billing_error') return 'account_dead';
  const googleReasons = Array.isArray(error?.details) ? error.details.map((detail) => stringOf(recordOf(detail)?.reason)) : [];
  if (googleReasons.includes('API_KEY_INVALID') || stringOf(error?.status) === 'UNAUTHENTICATED') return 'key_rejected';
  // Google answers its rate limits — per minute as per day, paid tiers as free — with a 429
  // RESOURCE_EXHAUSTED saying "You exceeded your current quota" (details: QuotaFailure, RetryInfo): a limit
  // that lifts, not an account that cannot serve. Read by its status, never by that message.
  if (stringOf(error?.status) === 'RESOURCE_EXHAUSTED') return undefined;
  // Anthropic answers an account out of credit with a 400 (its docs: errors).
  if (type === 'invalid_request_error' && message.startsWith(anthropicNoCredit)) return 'account_dead';
  if (!callerRefusedStatuses.has(status)) return undefined;
  if (keyRejectedPrefixes.some((prefix) => message.startsWith(prefix))) return 'key_rejected';
  if (accountDeadPrefixes.some((prefix) => message.startsWith(prefix))) return 'account_dead';
  return undefined;
}

// OpenAI's codes (its docs: error codes).
const keyRejectedCodes = new Set(['invalid_api_key']);
const accountDeadCodes = new Set(['insufficient_quota', 'account_deactivated', 'billing_not_active']);
const anthropicNoCredit = 'your credit balance is too low';
const callerRefusedStatuses = new Set([401, 402, 403, 429]);
const keyRejectedPrefixes = ['api key not valid', 'incorrect api key', 'invalid api key', 'invalid x-api-key'];
// What vendors and relays without those fields say of a dead account (new-api's default keyword list;
// "you exceeded your current quota" is OpenAI's insufficient_quota message: Google's rate limits say it too,
// and are read above by their status).
const accountDeadPrefixes = [
  anthropicNoCredit,
  'this organization has been disabled',
  'you exceeded your current quota',
  'insufficient_quota',
  'your account has been deactivated',
  'the security token included in the request is invalid',
  'your account is not authorized',
];

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
