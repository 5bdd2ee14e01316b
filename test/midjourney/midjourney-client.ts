import { expect } from 'vitest';
import type { FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import type { TaskSuiteClient } from '../support/task-suite-client.js';

export interface SubmitAnswer {
  code: number;
  description: string;
  result: unknown;
  properties: Record<string, unknown>;
}

export interface MjTask {
  id: string;
  action: string;
  status: string;
  progress: string;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  imageUrl: string | null;
  failReason: string | null;
  submitTime: number;
  startTime: number;
  finishTime: number;
  buttons: { customId: string; label: string }[];
  properties: Record<string, unknown>;
}

/** What the Midjourney suites do again and again: submit (expecting 200), fetch a task, finish an imagine. */
export function midjourneyClient(client: TaskSuiteClient, upstreams: () => FakeMidjourneyUpstream[]) {
  async function submit(path: string, body: unknown, key?: string): Promise<SubmitAnswer> {
    const response = await client.call(path, body, key);
    expect(response.status, path).toBe(200);
    return (await response.json()) as SubmitAnswer;
  }
  async function fetchTask(id: string, key?: string): Promise<MjTask> {
    const response = await client.call(`/mj/task/${id}/fetch`, undefined, key);
    expect(response.status).toBe(200);
    return (await response.json()) as MjTask;
  }
  /** An imagine of the caller's, taken to SUCCESS on the proxy that has it and polled: its public id and the proxy's. */
  async function finishedImagine(prompt: string, key?: string): Promise<{ id: string; upstreamId: string }> {
    const id = (await submit('/mj/submit/imagine', { prompt }, key)).result as string;
    const upstreamId = await client.upstreamIdOf(id);
    upstreams()
      .find((upstream) => upstream.tasks.has(upstreamId))
      ?.advance(upstreamId, { status: 'SUCCESS' });
    await client.poll();
    return { id, upstreamId };
  }
  return { submit, fetchTask, finishedImagine };
}
