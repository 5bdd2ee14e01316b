import { isRecord } from '../../convert/shared/is-record.js';
import type { TaskSubmitOutcome } from '../task-submit/task-submit-outcome.js';
import type { MjAction } from './mj-actions.js';

/**
 * Pure: what a Midjourney-proxy's submit answer `{code, description, result, properties}` means
 * (protocols.md §1.4), as a task outcome:
 * - 1 (submitted), 22 (queued) and 21 (the task exists, or waits for its modal): accepted — and finished
 *   at once when 21 says `properties.status: SUCCESS` (an image already made);
 * - an upload's 1 carries the image links (an array) and is finished at once;
 * - 24 (banned prompt) and 4 (the proxy refused the request): failed at once, nothing charged, answered
 *   as the proxy said (another channel would refuse it too);
 * - 23 (queue full), 3 (no account) and anything else: a failure another channel may not have.
 */
export function readMjSubmitAnswer(action: MjAction, json: unknown): TaskSubmitOutcome {
  if (!isRecord(json) || typeof json.code !== 'number') return unusable('an answer without a numeric code');
  const description = typeof json.description === 'string' ? json.description : '';
  const stored = JSON.stringify(json);
  switch (json.code) {
    case 1:
    case 21:
    case 22: {
      if (action === 'UPLOAD') {
        if (!Array.isArray(json.result)) return unusable('an upload answer without image links');
        return { kind: 'accepted', upstreamId: '', status: 'success', progress: 100, result: stored, httpStatus: 200 };
      }
      if (typeof json.result !== 'string' || json.result === '') return unusable('a submit answer without a task id');
      const done = json.code === 21 && isRecord(json.properties) && json.properties.status === 'SUCCESS';
      return { kind: 'accepted', upstreamId: json.result, status: done ? 'success' : 'submitted', progress: done ? 100 : 0, result: stored, httpStatus: 200 };
    }
    case 4:
    case 24:
      return { kind: 'accepted', upstreamId: typeof json.result === 'string' ? json.result : '', status: 'failure', progress: 0, failReason: `${json.code === 24 ? 'banned_prompt' : 'refused'}: ${description}`.slice(0, 500), result: stored, httpStatus: 200 };
    // The proxy's own words here name its accounts and instances: the client is told the code only.
    case 23:
      return { kind: 'failed', failure: { kind: 'status', status: 429, message: "The Midjourney proxy's queue is full (code 23)." } };
    default:
      return { kind: 'failed', failure: { kind: 'status', status: json.code === 3 ? 503 : 500, message: `The Midjourney proxy did not take the task (code ${json.code}).` } };
  }
}

function unusable(what: string): TaskSubmitOutcome {
  return { kind: 'failed', failure: { kind: 'status', status: 502, message: `The Midjourney proxy sent ${what}.` } };
}
