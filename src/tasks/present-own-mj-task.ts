import type { OwnMjTaskRow } from '../storage/tasks-repository.js';
import { mjImageUrlOf, presentMjTask } from './present-mj-task.js';

/**
 * Pure: one of a user's Midjourney tasks as new-api's console list shows it (`GET /api/mj/self`, new-api's
 * `model.Midjourney` record, snake_case), made from the task object `/mj/task/{id}/fetch` answers, so the
 * two never disagree: the public id as `id` and `mj_id` (new-api's `id` is its row number, a count of every
 * user's tasks, and its `mj_id` the proxy's id; its console uses `id` only as a row key), the action, the
 * prompts, the description, `state`, the MJ status, `"NN%"` progress (`"100%"` after a failure, as
 * new-api's record holds it), the image as the gateway's own `/mj/image/{id}` (new-api's default,
 * `MjForwardUrlEnabled`: the proxy's address stays the operator's), the proxy's video links, the failure
 * reason, the times in unix ms, the charge settled at submit (0 before it), and the buttons and visible
 * properties as JSON text, as new-api keeps them. Never the proxy's task id, the channel or its key.
 */
export function presentOwnMjTask(task: OwnMjTaskRow): Record<string, unknown> {
  const shown = presentMjTask(task);
  return {
    id: task.public_id,
    mj_id: task.public_id,
    action: shown.action,
    prompt: shown.prompt,
    prompt_en: shown.promptEn,
    description: shown.description,
    state: shown.state,
    status: shown.status,
    progress: task.status === 'failure' ? '100%' : shown.progress,
    image_url: mjImageUrlOf(task) === undefined ? '' : `/mj/image/${task.public_id}`,
    video_url: shown.videoUrl ?? '',
    video_urls: shown.videoUrls === undefined ? '' : JSON.stringify(shown.videoUrls),
    fail_reason: shown.failReason ?? '',
    submit_time: shown.submitTime,
    start_time: shown.startTime,
    finish_time: shown.finishTime,
    quota: task.quota === null ? 0 : Number(task.quota),
    buttons: JSON.stringify(shown.buttons),
    properties: JSON.stringify(shown.properties),
  };
}
