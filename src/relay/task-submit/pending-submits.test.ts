import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { SubmittedTask } from '../../storage/tasks-repository.js';
import { PendingSubmits } from './pending-submits.js';

/** An upstream id an upstream may choose: both quotes, backslashes before a quote and at the end, a newline, a CR, a tab. */
const hostileId = `vid'eo "x" \\' \\\\ end\nDROP TABLE tasks; --\r\tlast\\`;

const submitted: SubmittedTask = {
  channelId: 7,
  keyFingerprint: 'fp-0123abcd',
  upstreamModel: `sora-2 'pro' \\ "hd"`,
  upstreamId: hostileId,
  status: 'queued',
  progress: 0,
  result: '{}',
  nextPollAt: 0,
};

/** PendingSubmits on a database that refuses every write: what the operator is told once it gives up. */
async function reportOfGivenUp(): Promise<string[]> {
  const lines: string[] = [];
  const refused = () => Promise.reject(new Error('database down'));
  const pending = new PendingSubmits({ markSubmitted: refused, findById: refused }, { report: (line) => lines.push(line), now: () => 1_000, schedule: { firstDelayMs: 60_000, maxDelayMs: 60_000, tries: 1 } });
  pending.hold({ id: 42, publicId: 'task_abc', userId: 3 }, submitted);
  await pending.close();
  return lines;
}

/** The restore statement and its parameters, out of the operator's line. */
function restoreOf(line: string): { statement: string; parameters: unknown[] } {
  const match = /restored first with: (UPDATE tasks [^[]*) with parameters (\[.*\])$/.exec(line);
  expect(match, line).not.toBeNull();
  return { statement: match![1]!, parameters: JSON.parse(match![2]!) as unknown[] };
}

describe('PendingSubmits', () => {
  it('tells the operator, on one line, the upstream id and a restore statement whose values are parameters, for an id of quotes, backslashes and newlines', async () => {
    const lines = await reportOfGivenUp();
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).not.toMatch(/[\n\r]/);
    expect(line).toContain(`(upstream id ${JSON.stringify(hostileId)})`);
    const { statement, parameters } = restoreOf(line);
    expect(parameters).toEqual([7, 'fp-0123abcd', submitted.upstreamModel, hostileId, 'queued', 42]);
    // No value is spliced into the SQL.
    expect(statement).not.toContain('vid');
    expect(statement).not.toContain('sora-2');
  });

  it('prints a restore statement that, run with its parameters, writes the submitted state exactly onto the not_start row', async () => {
    const { statement, parameters } = restoreOf((await reportOfGivenUp())[0]!);
    const database = new Database(':memory:');
    database.exec("CREATE TABLE tasks (id INTEGER PRIMARY KEY, channel_id INTEGER, key_fingerprint TEXT, upstream_model TEXT, upstream_id TEXT, status TEXT, next_poll_at INTEGER)");
    database.exec("INSERT INTO tasks VALUES (42, NULL, '', '', NULL, 'not_start', 99), (43, NULL, '', '', NULL, 'not_start', 99)");
    expect(database.prepare(statement).run(...parameters).changes).toBe(1);
    expect(database.prepare('SELECT * FROM tasks ORDER BY id').all()).toEqual([
      { id: 42, channel_id: 7, key_fingerprint: 'fp-0123abcd', upstream_model: submitted.upstreamModel, upstream_id: hostileId, status: 'queued', next_poll_at: 0 },
      { id: 43, channel_id: null, key_fingerprint: '', upstream_model: '', upstream_id: null, status: 'not_start', next_poll_at: 99 },
    ]);
    // Once restored, not again: the statement touches only a not_start row.
    expect(database.prepare(statement).run(...parameters).changes).toBe(0);
    database.close();
  });
});
