/**
 * two poll loops (two replicas) on one database. Replica B reads its candidates, replica A
 * claims, polls and FINISHES the same task (success, lease back to 0), then B's guarded claim
 * (lease_until = the 0 it read) still succeeds and B advances a task that is already final.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TasksRepository } from '../../src/storage/tasks-repository.js';
import { TaskEngine } from '../../src/tasks/task-engine.js';
import { startVideosFixture, type VideosFixture, preferredDialect } from './videos-fixture.js';

let fixture: VideosFixture;
beforeAll(async () => {
  fixture = await startVideosFixture({ dialect: preferredDialect() });
});
afterAll(async () => {
  await fixture.close();
});

/** A Kysely proxy whose first `updateTable('tasks')` statement waits for `gate` before it runs. */
function gatedDb<T extends object>(db: T, gate: Promise<void>, reached: () => void): T {
  let armed = true;
  const wrapBuilder = (builder: object): object =>
    new Proxy(builder, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (property === 'executeTakeFirst' && armed) {
          armed = false;
          return async (...args: unknown[]) => {
            reached();
            await gate;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result !== null && typeof result === 'object' && !(result instanceof Promise) ? wrapBuilder(result) : result;
        };
      },
    });
  return new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property === 'updateTable' && typeof value === 'function') return (...args: unknown[]) => wrapBuilder((value as (...a: unknown[]) => object).apply(target, args));
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

it('a task another replica just completed is not advanced again (no refund of a delivered video)', async () => {
  const services = fixture.gateway.gateway.services;
  const before = await fixture.tokenUsed();
  const video = await fixture.client.videos.create({ model: 'sora-2', prompt: 'Race', seconds: '8' });
  const charged = (await fixture.tokenUsed()) - before;
  expect(charged).toBeGreaterThan(0);
  const upstreamId = (await fixture.task(video.id))?.upstream_id as string;

  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reached!: () => void;
  const atClaim = new Promise<void>((resolve) => (reached = resolve));
  const repositoryB = new TasksRepository(gatedDb(services.database.db, gate, () => reached()), services.database.dialect);
  const errors: unknown[] = [];
  const engineB = new TaskEngine({
    repository: repositoryB,
    catalog: services.catalog,
    upstream: services.relay.upstream,
    now: () => fixture.now(),
    intervalMs: 15_000,
    timeoutMs: 1440 * 60_000,
    onError: (error) => errors.push(error),
  });

  fixture.advanceClock(16_000);
  const passB = engineB.pollOnce(); // reads the candidate (lease 0), then waits at its claim
  await atClaim;
  // Replica A: the video is done; A claims, polls and completes it (lease back to 0).
  fixture.sora.advance(upstreamId, { status: 'completed' });
  await fixture.poll();
  expect((await fixture.task(video.id))?.status).toBe('success');
  // Replica B's pass gets on; by the time it advances the row, the task is past its timeout.
  fixture.advanceClock(1440 * 60_000);
  open();
  await passB;
  await fixture.gateway.settled();

  expect(errors).toEqual([]);
  const row = await fixture.task(video.id);
  expect(row?.status).toBe('success');
  expect(row?.refunded).toBe(0);
  // Delivered and paid for: still charged.
  expect((await fixture.tokenUsed()) - before).toBe(charged);
});
