import cluster from 'node:cluster';
import type { Environment } from '../config/read-environment.js';
import { createDatabase } from '../storage/create-database.js';
import { runMigrations } from '../storage/run-migrations.js';

/**
 * `relay serve --workers N`: N gateway processes sharing one port (node:cluster), so every core serves.
 * The primary migrates once, then forks; each worker is a full gateway. A worker that dies is replaced
 * under the same index, so it settles the reservations its previous incarnation left open (its
 * NODE_NAME is `<base>#w<index>`).
 */
export async function serveCluster(environment: Environment, workers: number): Promise<void> {
  const database = await createDatabase(environment.databaseUrl);
  await runMigrations(database.db, database.dialect);
  await database.close();
  const baseName = environment.nodeName ?? `${(await import('node:os')).hostname()}:${environment.port}`;
  const indexOf = new Map<number, number>();
  let stopping = false;
  const fork = (index: number) => {
    const worker = cluster.fork({ NODE_NAME: `${baseName}#w${index}`, RELAY_WORKER_INDEX: String(index) });
    indexOf.set(worker.id, index);
  };
  for (let index = 1; index <= workers; index += 1) fork(index);
  cluster.on('exit', (worker, code, signal) => {
    const index = indexOf.get(worker.id);
    indexOf.delete(worker.id);
    if (stopping || index === undefined) return;
    process.stderr.write(`worker ${index} exited (${signal ?? code}); starting it again\n`);
    fork(index);
  });
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  await new Promise<void>((resolve) => cluster.on('exit', () => (Object.keys(cluster.workers ?? {}).length === 0 && stopping ? resolve() : undefined)));
}
