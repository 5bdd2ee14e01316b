/** From the limits audit: a redis-server of the test's own (a free port, no persistence) that it can stop, freeze and restart. */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface OwnRedis {
  url: string;
  /** SIGSTOP: the server keeps its connections but answers nothing (a stalled or partitioned Redis). */
  freeze(): void;
  thaw(): void;
  /** SIGKILL: connections are refused until `start` again. */
  kill(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 100; i += 1) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      });
      if (up) return;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  };
  const kill = async () => {
    const running = child;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await exited;
    child = undefined;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => void child?.kill('SIGSTOP'),
    thaw: () => void child?.kill('SIGCONT'),
    kill,
    start,
    close: kill,
  };
}
