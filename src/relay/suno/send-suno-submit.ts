import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { isRecord } from '../../convert/shared/is-record.js';
import type { RelayServices } from '../relay-services.js';
import { postTaskJson } from '../task-submit/post-task-json.js';
import type { SubmitCall, TaskSubmitOutcome } from '../task-submit/task-submit-outcome.js';
import type { SunoAction } from './suno-request.js';

/**
 * POST `{base}/suno/submit/{ACTION}` to a Suno-API proxy (protocols.md §2). It answers
 * `{code: "success", data: "<task id>"}`; another `code` (the proxy is busy, out of credit) is a failure
 * like a 500, tried on another channel.
 */
export async function sendSunoSubmit(relay: RelayServices, channel: ChannelRecord, key: string, action: SunoAction, body: Record<string, unknown>, call: SubmitCall): Promise<TaskSubmitOutcome> {
  const answered = await postTaskJson(relay, { url: `${channel.baseUrl}/suno/submit/${action}`, headers: { authorization: `Bearer ${key}`, accept: 'application/json' }, body, call }, key, 'The Suno upstream');
  if (!('ok' in answered)) return answered;
  const { json } = answered;
  if (!isRecord(json) || json.code !== 'success' || typeof json.data !== 'string' || json.data === '') {
    const code = isRecord(json) ? String(json.code ?? '') : '';
    const message = isRecord(json) && typeof json.message === 'string' ? json.message : '';
    return { kind: 'failed', failure: { kind: 'status', status: 500, message: `The Suno upstream did not take the task${code === '' ? '' : ` (${code}${message === '' ? '' : `: ${message}`})`}.` } };
  }
  return { kind: 'accepted', upstreamId: json.data, status: 'submitted', progress: 0, result: JSON.stringify(json), httpStatus: 200 };
}
