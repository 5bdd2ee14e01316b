import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import type { ConfigFile } from '../../src/config/config-file-schema.js';

const repositoryRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** Every child still running, killed when this test process exits however it exits. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A port nobody listens on right now: listen on 0 on loopback, read it, close. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Writes the config as YAML in a temp directory of its own; returns its path and how to remove it. */
export function writeConfigFile(config: ConfigFile): { path: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), 'relay-config-'));
  const path = join(directory, 'relay.yaml');
  writeFileSync(path, stringify(config));
  return { path, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

export interface GatewayProcess {
  url: string;
  port: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** SIGKILL: the process gets no chance to settle or flush anything. */
  crash(): Promise<void>;
  /** SIGTERM (a clean shutdown), then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface GatewayProcessOptions {
  port: number;
  databaseUrl: string;
  configPath: string;
  nodeName: string;
  redisUrl?: string;
  /** Extra node flags before the script (e.g. `--import` of a loader hook) and extra environment. */
  nodeArgs?: string[];
  env?: Record<string, string>;
}

/**
 * `relay serve` in a process of its own, run from the TypeScript sources through tsx (CI runs the tests
 * without building). Only loopback; the environment is built from scratch so nothing leaks in from ours.
 */
export function spawnGatewayProcess(options: GatewayProcessOptions): GatewayProcess {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    PORT: String(options.port),
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseUrl,
    RELAY_CONFIG: options.configPath,
    NODE_NAME: options.nodeName,
    CRYPTO_SECRET: 'billing-e2e-crypto-secret',
    SESSION_SECRET: 'billing-e2e-session-secret',
    LOG_LEVEL: 'warn',
    SYNC_FREQUENCY: '1',
    ...(options.redisUrl === undefined ? {} : { REDIS_URL: options.redisUrl }),
    ...options.env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', ...(options.nodeArgs ?? []), 'src/cli/relay.ts', 'serve'], {
    cwd: repositoryRoot,
    env,
    detached: false,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolveExit({ code, signal });
    });
  });
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const url = `http://127.0.0.1:${options.port}`;

  async function terminate(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    if (hasExited) return;
    child.kill(signal);
    const outcome = await Promise.race([exited, sleep(graceMs).then(() => 'timeout' as const)]);
    if (outcome === 'timeout') {
      child.kill('SIGKILL');
      await exited;
    }
  }

  return {
    url,
    port: options.port,
    output: () => output,
    exited,
    async waitUntilReady(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (hasExited) throw new Error(`gateway ${options.nodeName} exited before it was ready:\n${output}`);
        // Its own announcement first: a port found free can be taken by another suite's gateway before this
        // one binds it, and that gateway would answer /readyz in its place (this one then exits EADDRINUSE).
        const listening = output.includes(`listening on ${url}`);
        const ready =
          listening &&
          (await fetch(`${url}/readyz`).then(
            (response) => response.status === 200,
            () => false,
          ));
        if (ready) return;
        if (Date.now() > deadline) throw new Error(`gateway ${options.nodeName} was not ready after ${timeoutMs} ms:\n${output}`);
        await sleep(100);
      }
    },
    crash: () => terminate('SIGKILL', 5000),
    stop: (graceMs = 5000) => terminate('SIGTERM', graceMs),
  };
}
