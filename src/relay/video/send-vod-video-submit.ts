import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { buildAigcVideoTask, type AigcVideoInput } from '../../providers/tencent-vod/build-aigc-video-task.js';
import { callVodApi } from '../../providers/tencent-vod/call-vod-api.js';
import { parseVodKey } from '../../providers/tencent-vod/vod-credentials.js';
import type { RelayServices } from '../relay-services.js';
import type { SubmitCall, TaskSubmitOutcome } from '../task-submit/task-submit-outcome.js';

/**
 * Tencent VOD's `CreateAigcVideoTask` (spec §4.9.5, protocols.md §5), signed with the channel key's
 * secret. The request is built from the client's fields (a 400 for what VOD cannot take: data: URIs, more
 * than 3 files, a model that is not `Family-Version`). VOD answers a task id and nothing else: the task
 * starts `queued`.
 */
export async function sendVodVideoSubmit(relay: RelayServices, channel: ChannelRecord, key: string, input: Omit<AigcVideoInput, 'subAppId'>, call: SubmitCall): Promise<TaskSubmitOutcome> {
  const credentials = parseVodKey(key);
  if (credentials === undefined) return { kind: 'failed', failure: { kind: 'status', status: 401, message: `Channel ${channel.id}'s key is not SubAppId|SecretId|SecretKey[|Region].` } };
  const body = buildAigcVideoTask({ ...input, subAppId: credentials.subAppId });
  const called = await callVodApi(relay.upstream, channel.baseUrl, credentials, 'CreateAigcVideoTask', body, call.signal, relay.now(), call.answerArrived);
  if (!called.ok) {
    // A request VOD refuses is the client's: its message goes back as a 400 in the client's envelope.
    if (called.failure.kind === 'status' && called.failure.status === 400) throw new GatewayError('invalid_request', called.failure.message);
    return { kind: 'failed', failure: called.failure };
  }
  const taskId = called.response.TaskId;
  if (typeof taskId !== 'string' || taskId === '') return { kind: 'failed', failure: { kind: 'status', status: 502, message: 'Tencent VOD accepted the task but named no TaskId.' } };
  return { kind: 'accepted', upstreamId: taskId, status: 'queued', progress: 0, result: JSON.stringify({ Response: called.response }), httpStatus: 200 };
}
