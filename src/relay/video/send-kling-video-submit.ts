import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { buildKlingVideoTask, klingErrorStatus, type KlingVideoInput } from '../../providers/kling/build-kling-video-task.js';
import { klingToken, parseKlingKey } from '../../providers/kling/kling-credentials.js';
import { describeFailure } from '../../providers/upstream-client.js';
import { redactSecret } from '../redact-secret.js';
import type { RelayServices } from '../relay-services.js';
import type { SubmitCall, TaskSubmitOutcome } from '../task-submit/task-submit-outcome.js';

/**
 * Kling's create call (protocols.md §3.2): POST `{base}/v1/videos/{text2video|image2video}` with a JWT made
 * from the channel key. The task is recorded as `<action>/<task id>`, the path it is queried by. Kling's
 * `code` (in any status) decides: 0 taken; auth codes are the key's (401), request and policy codes the
 * client's (400, with Kling's message), others the upstream's (500, tried elsewhere).
 */
export async function sendKlingVideoSubmit(relay: RelayServices, channel: ChannelRecord, key: string, input: KlingVideoInput, call: SubmitCall): Promise<TaskSubmitOutcome> {
  const credentials = parseKlingKey(key);
  if (credentials === undefined) return { kind: 'failed', failure: { kind: 'status', status: 401, message: `Channel ${channel.id}'s key is not AccessKey|SecretKey.` } };
  const { action, body } = buildKlingVideoTask(input);
  const sent = await relay.upstream.send({
    url: `${channel.baseUrl}/v1/videos/${action}`,
    method: 'POST',
    headers: { authorization: `Bearer ${klingToken(credentials, relay.now())}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal: call.signal,
  });
  if (!sent.ok) return { kind: 'failed', failure: sent.failure };
  // Kling's `code` in the body decides whether it took the task; a 2xx is read whole whatever it says.
  if (sent.response.statusCode < 300) call.answerArrived();
  let json: unknown;
  try {
    json = JSON.parse((await sent.response.body.bytes()).toString('utf8'));
  } catch (error) {
    return { kind: 'failed', failure: error instanceof SyntaxError ? { kind: 'status', status: 502, message: `Kling answered HTTP ${sent.response.statusCode} without JSON.` } : describeFailure(error) };
  }
  const code = isRecord(json) && typeof json.code === 'number' ? json.code : undefined;
  const data = isRecord(json) && isRecord(json.data) ? json.data : undefined;
  const taskId = data?.task_id;
  if (code === 0 && sent.response.statusCode < 300 && (typeof taskId === 'string' || typeof taskId === 'number') && String(taskId) !== '') {
    return { kind: 'accepted', upstreamId: `${action}/${String(taskId)}`, status: 'submitted', progress: 0, result: JSON.stringify(json), httpStatus: 200 };
  }
  const message = redactSecret(isRecord(json) && typeof json.message === 'string' ? json.message : `HTTP ${sent.response.statusCode}`, key);
  const status = code === undefined ? (sent.response.statusCode >= 400 ? sent.response.statusCode : 502) : klingErrorStatus(code);
  if (status === 400) throw new GatewayError('invalid_request', `Kling refused the task: ${message}`);
  return { kind: 'failed', failure: { kind: 'status', status, message: `Kling refused the task (code ${code ?? 'none'}): ${message}` } };
}
