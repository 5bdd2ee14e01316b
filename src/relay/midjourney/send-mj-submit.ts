import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { mjSecretHeaders } from '../../providers/midjourney/mj-secret-headers.js';
import type { RelayServices } from '../relay-services.js';
import { postTaskJson } from '../task-submit/post-task-json.js';
import type { SubmitCall, TaskSubmitOutcome } from '../task-submit/task-submit-outcome.js';
import type { MjAction } from './mj-actions.js';
import { readMjSubmitAnswer } from './read-mj-submit-answer.js';

/** POST `{base}{path}` to a Midjourney-proxy and reads its answer (read-mj-submit-answer.ts). */
export async function sendMjSubmit(relay: RelayServices, channel: ChannelRecord, key: string, action: MjAction, path: string, body: Record<string, unknown>, call: SubmitCall): Promise<TaskSubmitOutcome> {
  const answered = await postTaskJson(relay, { url: `${channel.baseUrl}${path}`, headers: mjSecretHeaders(key), body, call }, key, 'The Midjourney proxy');
  if ('ok' in answered) return readMjSubmitAnswer(action, answered.json);
  // An HTTP error's body is the proxy's (its accounts, instances, task ids): the client sees the status only.
  // A failure without one (a redirect, an answer that is not JSON) says the gateway's own words: kept.
  if (answered.failure.kind !== 'status' || answered.errorBody === undefined) return answered;
  const message = `The Midjourney proxy answered HTTP ${answered.failure.status}.`;
  return { ...answered, failure: { ...answered.failure, message }, ...(answered.errorBody === undefined ? {} : { errorBody: { ...answered.errorBody, message } }) };
}
