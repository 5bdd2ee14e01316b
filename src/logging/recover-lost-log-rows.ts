import type { RecoveredReservation } from '../billing/quota-ledger.js';
import type { LogRow } from '../storage/logs-repository.js';

/** What start-up recovery of lost log rows reads and writes (the options, the ledger's rows, the log). */
export interface LostLogRowsStore {
  /** The option under `key`, if set. */
  readOption(key: string): Promise<string | undefined>;
  writeOption(key: string, value: string): Promise<void>;
  /** Settled reservations of `owner` made since `since` with a charge and no log row (find-unlogged-settlements.ts). */
  findUnlogged(owner: string, since: number): Promise<RecoveredReservation[]>;
  insertRows(rows: LogRow[]): Promise<void>;
}

/** The option recording a node's run: the start time of a run not (yet) ended cleanly, or `clean`. */
export const logRunKey = (node: string) => `log_run:${node}`;
const clean = 'clean';
const insertBatch = 100;

/**
 * At start: when this node's previous run did not end with every log row written (killed, or rows it
 * could not write), writes a row for each charge it settled without one — from the settlement, as the
 * rows of reservations it left open are (`buildRow`) — then records this run's start. Nothing on the hot
 * path: a run is marked once at its start and once at its clean end (`markLogRunClean`). A failure leaves
 * the earlier mark, so the next start looks from the older run on.
 */
export async function recoverLostLogRows(store: LostLogRowsStore, node: string, now: number, buildRow: (reservation: RecoveredReservation) => LogRow): Promise<{ rows: number; quota: number }> {
  const key = logRunKey(node);
  const previous = await store.readOption(key);
  const since = previous === undefined || previous === clean ? undefined : Number(previous);
  let quota = 0;
  let rows = 0;
  if (since !== undefined && Number.isFinite(since)) {
    const lost = await store.findUnlogged(node, since);
    for (let start = 0; start < lost.length; start += insertBatch) {
      const slice = lost.slice(start, start + insertBatch);
      await store.insertRows(slice.map(buildRow));
      rows += slice.length;
      for (const reservation of slice) quota += reservation.charged;
    }
  }
  await store.writeOption(key, String(now));
  return { rows, quota };
}

/** At a clean end whose log rows were all written: the next start has nothing to look for. */
export async function markLogRunClean(store: Pick<LostLogRowsStore, 'writeOption'>, node: string): Promise<void> {
  await store.writeOption(logRunKey(node), clean);
}
