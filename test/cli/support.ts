import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root, the CLI's source and the tsx loader by absolute path, so the CLI can run from any working directory. */
export const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const cliSource = join(root, 'src/cli/relay.ts');
const tsxLoader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
export const cliArgs = ['--import', tsxLoader, cliSource];

/** Only what a newcomer's shell would have: no DATABASE_URL, no RELAY_CONFIG (unless a test gives them). */
export function cleanEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent' };
  return { ...base, ...extra };
}

export function runCli(args: string[], options: { cwd: string; env: Record<string, string> }) {
  return spawnSync(process.execPath, [...cliArgs, ...args], { cwd: options.cwd, env: options.env, encoding: 'utf8', timeout: 60_000 });
}

export function spawnCli(args: string[], options: { cwd: string; env: Record<string, string> }): ChildProcess & { output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: options.cwd, env: options.env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return Object.assign(child, { output: () => ({ stdout, stderr }) });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** The README's ```yaml example, as written. */
export function readmeYaml(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const match = /```yaml\n([\s\S]*?)```/.exec(readme);
  if (match === null) throw new Error('README has no yaml example');
  return match[1] as string;
}

export function readme(): string {
  return readFileSync(join(root, 'README.md'), 'utf8');
}
