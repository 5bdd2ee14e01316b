import type { TaskRow } from '../storage/tasks-repository.js';

/**
 * Pure: a function that replaces, in a text, the upstream's ids of a task and of the task it continues
 * (`properties.originUpstreamId`, a Midjourney action's origin) with their public ids. Upstream messages
 * (a failure reason, a description) quote them; clients only ever know the public ones.
 */
export function showPublicTaskIds(task: Pick<TaskRow, 'upstream_id' | 'public_id'>, properties: Record<string, unknown>): (text: string) => string {
  const pairs: Array<[string, string]> = [];
  if (task.upstream_id !== null && task.upstream_id !== '') pairs.push([task.upstream_id, task.public_id]);
  if (typeof properties.originUpstreamId === 'string' && typeof properties.origin === 'string' && properties.originUpstreamId !== '') pairs.push([properties.originUpstreamId, properties.origin]);
  return (text) => pairs.reduce((result, [upstream, shown]) => result.replaceAll(upstream, shown), text);
}
