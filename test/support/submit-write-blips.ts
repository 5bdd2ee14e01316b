import { setTimeout as sleep } from 'node:timers/promises';
import { vi } from 'vitest';
import type { SubmittedTask, TasksRepository } from '../../src/storage/tasks-repository.js';
import type { TestGateway } from './start-test-gateway.js';

/**
 * The database blips the task-submit suites put under an accepted submit (every task kind shares
 * src/relay/task-submit/run-task-submit.ts). A refusal is the driver's, as a lost connection's would be,
 * for one repository method only, while the rest of the request uses the real database. Tests restore
 * the spies (`vi.restoreAllMocks()`) in their `afterEach`.
 */

/** What the driver throws for a connection that went away under a query. */
export function lostConnection(): Error {
  return Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
}

/**
 * The next `refusals` submitted-state writes (`markSubmitted`) of `gateway` fail as a lost connection;
 * returns every write's outcome, in order: 'refused', 'written', or 'left not_start' (the row had left it).
 */
export function refuseSubmittedWrites(gateway: TestGateway, refusals: number): string[] {
  const tasks = gateway.gateway.services.repositories.tasks;
  const markSubmitted = tasks.markSubmitted.bind(tasks);
  const outcomes: string[] = [];
  let left = refusals;
  vi.spyOn(tasks, 'markSubmitted').mockImplementation(async (id: number, submitted: SubmittedTask, now: number) => {
    if (left > 0) {
      left -= 1;
      outcomes.push('refused');
      throw lostConnection();
    }
    const written = await markSubmitted(id, submitted, now);
    outcomes.push(written ? 'written' : 'left not_start');
    return written;
  });
  return outcomes;
}

/**
 * The next `refusals` calls of `method` on `gateway`'s tasks repository fail as a lost connection before
 * reaching the database; returns how many calls were made (`calls.count`).
 */
export function refuseTaskWrites(gateway: TestGateway, method: 'recordCharge', refusals: number): { count: number } {
  const tasks: TasksRepository = gateway.gateway.services.repositories.tasks;
  const original = tasks[method].bind(tasks);
  const calls = { count: 0 };
  let left = refusals;
  vi.spyOn(tasks, method).mockImplementation(async (...args: Parameters<TasksRepository[typeof method]>) => {
    calls.count += 1;
    if (left > 0) {
      left -= 1;
      throw lostConnection();
    }
    return original(...args);
  });
  return calls;
}

/** The operator's lines (RelayServices.report goes to stderr) that contain `marker`; others pass through. */
export function reportedLines(marker = 'was accepted by channel'): string[] {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr) as (chunk: string | Uint8Array) => boolean;
  vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => (String(chunk).includes(marker) ? lines.push(String(chunk)) > 0 : write(chunk))) as typeof process.stderr.write);
  return lines;
}

/** Waits (50 ms steps) until `done()`; past `withinMs`, if given, throws instead. */
export async function until(done: () => boolean, withinMs?: number): Promise<void> {
  const deadline = withinMs === undefined ? Infinity : Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${withinMs} ms`);
    await sleep(50);
  }
}
