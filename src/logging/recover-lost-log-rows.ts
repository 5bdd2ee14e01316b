import type { RecoveredReservation } from '../billing/quota-ledger.js';
import type { LogRow } from '../storage/logs-repository.js';

/** What recovery of lost log rows reads and writes (the options, the ledger's rows, the log). */
export interface LostLogRowsStore {
  /** The option under `key`, if set. */
  readOption(key: string): Promise<string | undefined>;
  writeOption(key: string, value: string): Promise<void>;
  /** Sets the option to `value` only if it is still `expected`; answers whether it did. */
  replaceOption(key: string, expected: string, value: string): Promise<boolean>;
  /** Every node's run mark (the options `log_run:<node>`), by node. */
  readRunMarks(): Promise<Map<string, string>>;
  /**
   * Settled reservations of `owner` made since `since` with a charge and no log row, and settled before
   * `settledBefore` when given (find-unlogged-settlements.ts).
   */
  findUnlogged(owner: string, since: number, settledBefore?: number): Promise<RecoveredReservation[]>;
  /** Writes the row unless another recovery wrote the reservation's (insert-recovered-log-row.ts); answers whether it did. */
  insertRecovered(reservation: RecoveredReservation, row: LogRow): Promise<boolean>;
}

const logRunPrefix = 'log_run:';
/** The option recording a node's run: `<start>` or `<start>:<last beat>` (unix ms) while not ended cleanly, or `clean`. */
export const logRunKey = (node: string) => `${logRunPrefix}${node}`;
const clean = 'clean';

/**
 * A run whose mark has not been beaten for this long is taken to be dead (the node killed and never
 * started again under its name: a replica removed, a cluster shrunk, a renamed NODE_NAME): another node
 * writes its lost rows. Runs beat hourly (the retention sweep), so this is six missed beats — and well
 * inside the day for which settled reservations are kept (start-retention.ts), after which nothing is
 * left to recover from.
 */
export const deadRunAfterMs = 6 * 60 * 60 * 1000;

/**
 * Of another node's run, only charges settled this long ago are written back: a live node writes its
 * rows within half a second, or keeps them while the database refuses them and writes them when it takes
 * them again (log-writer.ts). The second guard, after the dead run's silent beat, against writing the row
 * of a charge whose own row is still on its way.
 */
export const foreignSettlementGraceMs = 60 * 60 * 1000;

/**
 * A row the log writer still holds when its request finished this long ago goes through its
 * reservation's claim, as a written-back row does (log-writer.ts): a node cut off from the database for
 * hours is taken for dead while it holds rows, and when it reaches the database again another node may
 * have written them back. Half the grace above, so that clocks of two nodes half an hour apart still
 * agree on which rows are old. A connected node writes its rows within a second, so never comes near it.
 */
export const claimLogRowsAfterMs = foreignSettlementGraceMs / 2;

export interface RecoveredRows {
  rows: number;
  quota: number;
}

/** A mark's run: its start, and its last beat (the start until it beat); undefined for `clean` or nothing. */
export function parseRunMark(value: string | undefined): { start: number; beat: number } | undefined {
  if (value === undefined || value === clean) return undefined;
  const [start, beat] = value.split(':').map(Number);
  if (start === undefined || !Number.isFinite(start)) return undefined;
  return { start, beat: beat !== undefined && Number.isFinite(beat) ? beat : start };
}

/**
 * At start: when this node's previous run did not end with every log row written (killed, or rows it
 * could not write), writes a row for each charge it settled without one — from the settlement, as the
 * rows of reservations it left open are (`buildRow`) — then does the same for the dead runs of other
 * nodes (`recoverDeadRunsLogRows`), then records this run's start. Nothing on the hot path: a run is
 * marked at its start, beaten hourly (`beatLogRun`) and marked once more at its clean end
 * (`markLogRunClean`). A failure leaves the earlier mark, so the next start looks from the older run on.
 */
export async function recoverLostLogRows(store: LostLogRowsStore, node: string, now: number, buildRow: (reservation: RecoveredReservation) => LogRow): Promise<RecoveredRows> {
  const key = logRunKey(node);
  const previous = parseRunMark(await store.readOption(key));
  // The previous run under this name is over (this process took the name), so nothing of it is on its way.
  const own = previous === undefined ? { rows: 0, quota: 0 } : await writeBack(store, await store.findUnlogged(node, previous.start), buildRow);
  const others = await recoverDeadRunsLogRows(store, node, now, buildRow);
  await store.writeOption(key, String(now));
  return { rows: own.rows + others.rows, quota: own.quota + others.quota };
}

/**
 * The runs of other nodes not ended cleanly and not beaten for `deadRunAfterMs`: each one's charges
 * settled over `foreignSettlementGraceMs` ago without a row get one, then its mark is set `clean` — only
 * if it is still the mark read, so a node that beat meanwhile (alive after all) keeps its run. Every row
 * goes through the reservation's claim, so two nodes doing this at once (or with the dead node's own
 * restart) write each row once — and so does a node taken for dead while it was only cut off from the
 * database, whose log writer writes the rows it held through the same claims (`claimLogRowsAfterMs`). A
 * mark set `clean` here is the run's again at its next beat (`beatLogRun`); a node of the version before
 * this one never beats, and is not looked at again.
 */
export async function recoverDeadRunsLogRows(store: LostLogRowsStore, node: string, now: number, buildRow: (reservation: RecoveredReservation) => LogRow): Promise<RecoveredRows> {
  const total = { rows: 0, quota: 0 };
  for (const [other, value] of await store.readRunMarks()) {
    const run = parseRunMark(value);
    if (other === node || run === undefined || run.beat > now - deadRunAfterMs) continue;
    const written = await writeBack(store, await store.findUnlogged(other, run.start, now - foreignSettlementGraceMs), buildRow);
    total.rows += written.rows;
    total.quota += written.quota;
    await store.replaceOption(logRunKey(other), value, clean);
  }
  return total;
}

/**
 * Hourly while the run lives: its mark's beat, which tells the other nodes it is not dead. The mark keeps
 * an earlier start than this run's (a start whose recovery failed left the older run's mark to look from).
 */
export async function beatLogRun(store: Pick<LostLogRowsStore, 'readOption' | 'writeOption'>, node: string, runStart: number, now: number): Promise<void> {
  const marked = parseRunMark(await store.readOption(logRunKey(node)));
  await store.writeOption(logRunKey(node), `${Math.min(marked?.start ?? runStart, runStart)}:${now}`);
}

/** At a clean end whose log rows were all written: the next start has nothing to look for. */
export async function markLogRunClean(store: Pick<LostLogRowsStore, 'writeOption'>, node: string): Promise<void> {
  await store.writeOption(logRunKey(node), clean);
}

/** The node whose run mark `key` is, or undefined when it is not one. */
export function runMarkNode(key: string): string | undefined {
  return key.startsWith(logRunPrefix) ? key.slice(logRunPrefix.length) : undefined;
}

async function writeBack(store: LostLogRowsStore, lost: RecoveredReservation[], buildRow: (reservation: RecoveredReservation) => LogRow): Promise<RecoveredRows> {
  const written = { rows: 0, quota: 0 };
  for (const reservation of lost) {
    if (!(await store.insertRecovered(reservation, buildRow(reservation)))) continue;
    written.rows += 1;
    written.quota += reservation.charged;
  }
  return written;
}
