import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { describeFailure } from '../../providers/upstream-client.js';
import { readOpenaiVideo, storableVideoAnswer } from '../../tasks/read-openai-video.js';
import { failedAttemptFrom } from '../read-upstream-error.js';
import type { RelayServices } from '../relay-services.js';
import type { SubmitCall, TaskSubmitOutcome } from '../task-submit/task-submit-outcome.js';

/**
 * POST `{base}/v1/videos` (OpenAI's Videos API; or `path`, a remix's `/v1/videos/{id}/remix`) with the
 * bytes built for it. A 2xx that names no task (no `id` and known `status`) is a failure like a 502:
 * nothing to poll, nothing to bill.
 */
export async function sendOpenaiVideoSubmit(
  relay: RelayServices,
  channel: ChannelRecord,
  key: string,
  upstream: { bytes: string | Buffer; contentType: string },
  call: SubmitCall,
  path = '/v1/videos',
): Promise<TaskSubmitOutcome> {
  const sent = await relay.upstream.send({
    url: `${channel.baseUrl}${path}`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': upstream.contentType, accept: 'application/json' },
    body: upstream.bytes,
    signal: call.signal,
  });
  if (!sent.ok) return { kind: 'failed', failure: sent.failure };
  const { response } = sent;
  const status = response.statusCode;
  // A 3xx never gets here: the upstream client fails it (redirect-failure.ts).
  if (status >= 400) return failedAttemptFrom(response, key);
  call.answerArrived();
  let bytes: Buffer;
  try {
    bytes = await response.body.bytes();
  } catch (error) {
    // Cut by the upstream, or by the gateway when a client that left was waited out (USAGE_WAIT_SECONDS):
    // no answer names a task to poll or refund, so none is recorded and nothing is charged, as for a 2xx
    // that names no task (readFailureOutcome's "client left → served" is for text, billed its prompt).
    return { kind: 'failed', failure: describeFailure(error) };
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  const seen = readOpenaiVideo(json);
  if (seen === undefined || seen.upstreamId === undefined || !isRecord(json)) {
    return { kind: 'failed', failure: { kind: 'status', status: 502, message: 'The upstream accepted the video task but its answer names no task (no id and status).' } };
  }
  return {
    kind: 'accepted',
    upstreamId: seen.upstreamId,
    status: seen.status,
    progress: seen.progress ?? 0,
    ...(seen.status === 'failure' ? { failReason: seen.failReason ?? 'The upstream refused the task.' } : {}),
    result: storableVideoAnswer(json),
    httpStatus: status,
  };
}
