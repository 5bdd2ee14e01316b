import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { describeFailure, type UpstreamSignal } from '../../providers/upstream-client.js';
import { failedAttemptFrom } from '../read-upstream-error.js';
import type { RelayServices } from '../relay-services.js';
import type { TaskSubmitOutcome } from '../task-submit/task-submit-outcome.js';
import type { SunoAction } from './suno-request.js';

/**
 * POST `{base}/suno/submit/{ACTION}` to a Suno-API proxy (protocols.md §2). It answers
 * `{code: "success", data: "<task id>"}`; another `code` (the proxy is busy, out of credit) is a failure
 * like a 500, tried on another channel.
 */
export async function sendSunoSubmit(relay: RelayServices, channel: ChannelRecord, key: string, action: SunoAction, body: Record<string, unknown>, signal: UpstreamSignal): Promise<TaskSubmitOutcome> {
  const sent = await relay.upstream.send({
    url: `${channel.baseUrl}/suno/submit/${action}`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!sent.ok) return { kind: 'failed', failure: sent.failure };
  const { response } = sent;
  if (response.statusCode >= 400) return failedAttemptFrom(response, key);
  let json: unknown;
  try {
    json = JSON.parse((await response.body.bytes()).toString('utf8'));
  } catch (error) {
    return error instanceof SyntaxError ? { kind: 'failed', failure: { kind: 'status', status: 502, message: 'The Suno upstream answered something that is not JSON.' } } : { kind: 'failed', failure: describeFailure(error) };
  }
  if (!isRecord(json) || json.code !== 'success' || typeof json.data !== 'string' || json.data === '') {
    const code = isRecord(json) ? String(json.code ?? '') : '';
    const message = isRecord(json) && typeof json.message === 'string' ? json.message : '';
    return { kind: 'failed', failure: { kind: 'status', status: 500, message: `The Suno upstream did not take the task${code === '' ? '' : ` (${code}${message === '' ? '' : `: ${message}`})`}.` } };
  }
  return { kind: 'accepted', upstreamId: json.data, status: 'submitted', progress: 0, result: JSON.stringify(json), httpStatus: 200 };
}
