import type { UpstreamFailure } from '../../routing/classify-upstream-failure.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { maskUrlCredentials } from '../../security/mask-url-credentials.js';
import type { UpstreamClient, UpstreamSignal } from '../upstream-client.js';
import { tc3Authorization } from './sign-tc3.js';
import type { VodCredentials } from './vod-credentials.js';

const apiVersion = '2018-07-17';
const contentType = 'application/json; charset=utf-8';

export type VodCallResult = { ok: true; response: Record<string, unknown> } | { ok: false; failure: UpstreamFailure; code?: string };

/**
 * One signed call of the VOD API (protocols.md §5.1 B, §5.4): POST `{base}/` with `X-TC-Action`,
 * `X-TC-Version`, `X-TC-Timestamp`, the TC3 `Authorization` over the host the request goes to, and the
 * region when the key names one. Tencent answers errors with HTTP 200 and `Response.Error`; those become
 * failures with the status the retry policy understands (vodErrorStatus). `answerArrived` is told when a
 * 2xx arrived, before its body is read (a task submit reads it on after its client left).
 */
export async function callVodApi(upstream: UpstreamClient, baseUrl: string, credentials: VodCredentials, action: string, body: Record<string, unknown>, signal: UpstreamSignal, nowMs: number, answerArrived?: () => void): Promise<VodCallResult> {
  const text = JSON.stringify(body);
  const timestamp = Math.floor(nowMs / 1000);
  let host: string;
  try {
    host = new URL(baseUrl).host;
  } catch {
    return { ok: false, failure: { kind: 'connection', message: `The channel's base URL is not a URL: ${maskUrlCredentials(baseUrl)}` } };
  }
  const headers: Record<string, string> = {
    authorization: tc3Authorization({ secretId: credentials.secretId, secretKey: credentials.secretKey, service: 'vod', host, action, contentType, body: text, timestamp }),
    'content-type': contentType,
    'x-tc-action': action,
    'x-tc-version': apiVersion,
    'x-tc-timestamp': String(timestamp),
  };
  if (credentials.region !== undefined) headers['x-tc-region'] = credentials.region;
  const sent = await upstream.send({ url: `${baseUrl.replace(/\/+$/, '')}/`, method: 'POST', headers, body: text, signal });
  if (!sent.ok) return { ok: false, failure: sent.failure };
  if (sent.response.statusCode < 300) answerArrived?.();
  let answer: string;
  try {
    answer = (await sent.response.body.bytes()).toString('utf8');
  } catch (error) {
    return { ok: false, failure: { kind: 'connection', message: `Reading the VOD answer failed: ${(error as Error).message}` } };
  }
  const status = sent.response.statusCode;
  let json: unknown;
  try {
    json = JSON.parse(answer);
  } catch {
    json = undefined;
  }
  const response = isRecord(json) && isRecord(json.Response) ? json.Response : undefined;
  if (response !== undefined && isRecord(response.Error)) {
    const code = String(response.Error.Code ?? 'UnknownError');
    // Tencent quotes the SecretId or SubAppId in some messages: the client and the log never see them.
    const message = redactCredentials(String(response.Error.Message ?? ''), credentials);
    return { ok: false, code, failure: { kind: 'status', status: vodErrorStatus(code), message: `Tencent VOD ${action} failed: ${code}: ${message}` } };
  }
  if (status >= 400 || response === undefined) {
    return { ok: false, failure: { kind: 'status', status: status >= 400 ? status : 502, message: `Tencent VOD ${action} answered HTTP ${status} without a Response.` } };
  }
  return { ok: true, response };
}

/**
 * The HTTP status a VOD error code stands for, as the failover reads statuses: a rejected key or
 * signature → 401 (the key is set aside; the channel disabled when allowed), a request VOD refuses → 400
 * (back to the client), an unknown task → 404, throttling → 429, anything else → 500 (retried elsewhere).
 * A SubAppId refused (`InvalidParameterValue.SubAppId`) is the key's fault: 401.
 */
export function vodErrorStatus(code: string): number {
  // A SubAppId VOD does not know is the channel's key, not the client's request.
  if (code.startsWith('AuthFailure') || code.includes('SubAppId')) return 401;
  if (code.startsWith('UnauthorizedOperation')) return 403;
  if (code.startsWith('ResourceNotFound')) return 404;
  if (code.startsWith('LimitExceeded') || code.startsWith('RequestLimitExceeded')) return 429;
  if (code.startsWith('InvalidParameter') || code.startsWith('MissingParameter') || code.startsWith('UnsupportedOperation') || code.startsWith('InvalidAction') || code.startsWith('UnknownParameter')) return 400;
  return 500;
}

function redactCredentials(message: string, credentials: VodCredentials): string {
  let redacted = message;
  for (const secret of [credentials.secretKey, credentials.secretId, String(credentials.subAppId)]) redacted = redacted.replaceAll(secret, '[redacted]');
  return redacted;
}
