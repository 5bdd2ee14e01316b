import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs a TypeScript script (`node --import tsx`) from `cwd` and waits for it to exit by itself: its exit code,
 * or 'still running' (then killed) after `timeoutMs`, with everything it printed. For the tests that a
 * worker thread never keeps a process alive.
 */
export async function runScriptToExit(script: string, cwd: string, timeoutMs = 20_000): Promise<{ outcome: number | null | 'still running'; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const outcome = await Promise.race([exited, sleep(timeoutMs).then(() => 'still running' as const)]);
  if (outcome === 'still running') child.kill('SIGKILL');
  return { outcome, output };
}
