import { describeFailure } from '../../providers/upstream-client.js';
import { failedAttemptFrom } from '../read-upstream-error.js';
import type { RelayServices } from '../relay-services.js';
import type { SubmitCall, TaskSubmitOutcome } from './task-submit-outcome.js';

type Failed = Extract<TaskSubmitOutcome, { kind: 'failed' }>;

/**
 * POSTs a task submit as JSON and reads the answer's JSON: the parsed value, or the attempt's failure
 * (no answer, an HTTP error with its body read as the upstream's error, or a 2xx that is not JSON).
 * `upstream` names it in messages ("The Suno upstream").
 */
export async function postTaskJson(
  relay: RelayServices,
  request: { url: string; headers: Record<string, string>; body: unknown; call: SubmitCall },
  key: string,
  upstream: string,
): Promise<{ ok: true; json: unknown } | Failed> {
  const sent = await relay.upstream.send({ url: request.url, method: 'POST', headers: { ...request.headers, 'content-type': 'application/json' }, body: JSON.stringify(request.body), signal: request.call.signal });
  if (!sent.ok) return { kind: 'failed', failure: sent.failure };
  const { response } = sent;
  // A 3xx never gets here: the upstream client fails it (redirect-failure.ts).
  if (response.statusCode >= 400) return failedAttemptFrom(response, key);
  request.call.answerArrived();
  try {
    return { ok: true, json: JSON.parse((await response.body.bytes()).toString('utf8')) as unknown };
  } catch (error) {
    return error instanceof SyntaxError ? { kind: 'failed', failure: { kind: 'status', status: 502, message: `${upstream} answered something that is not JSON.` } } : { kind: 'failed', failure: describeFailure(error) };
  }
}
