import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- an .mjs module without type declarations
import { processTree } from '../../bench/lib/processes.mjs';

const tree = processTree as (pid: number) => number[];

describe('processTree (scenario 7 meters a cluster primary and its workers)', () => {
  let child: ChildProcess | undefined;

  afterEach(() => {
    // Killing the middle process's group takes the grandchild with it.
    if (child?.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  });

  it('lists a process, its children and their children, the process first', async () => {
    // A child that starts a grandchild and prints its pid, as `relay serve --workers N` forks its workers.
    const script = `const { spawn } = require('child_process');
      const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      console.log(grandchild.pid);
      setInterval(() => {}, 1000);`;
    child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const grandchild = Number(line.toString().trim());

    const pids = tree(child.pid!);
    expect(pids[0]).toBe(child.pid);
    expect(pids).toContain(grandchild);
    expect(new Set(pids).size).toBe(pids.length);
    // This test's own process is the child's parent, not part of its tree.
    expect(pids).not.toContain(process.pid);
    expect(tree(process.pid)).toEqual(expect.arrayContaining([process.pid, child.pid, grandchild]));
  });
});
