import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- an .mjs module without type declarations
import { establishedTo } from '../../bench/lib/processes.mjs';

const count = establishedTo as (port: number, pid?: number) => number;

describe('establishedTo (scenario 5 counts a relay’s connections to the fake)', () => {
  let server: Server | undefined;
  let socket: Socket | undefined;
  let child: ChildProcess | undefined;

  afterEach(async () => {
    socket?.destroy();
    child?.kill();
    if (server !== undefined) await new Promise((resolve) => server?.close(resolve));
  });

  it('counts every process’s connections to the port, or only those of one process', async () => {
    server = createServer((accepted) => accepted.on('error', () => {}));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    let accepted = 0;
    const bothConnected = new Promise<void>((resolve) => {
      server?.on('connection', () => {
        accepted += 1;
        if (accepted === 2) resolve();
      });
    });

    socket = createConnection(port, '127.0.0.1');
    // Another process holds the second connection: the other relay still pooling its connections.
    child = spawn(process.execPath, ['-e', `require('net').createConnection(${port}, '127.0.0.1'); setInterval(() => {}, 1000);`], { stdio: 'ignore' });
    await bothConnected;

    expect(count(port)).toBe(2);
    expect(count(port, process.pid)).toBe(1);
    expect(count(port, child.pid)).toBe(1);
    // Accepted sockets are on the port locally, not remotely: the server's own process holds none to it.
    socket.destroy();
    await once(socket, 'close');
    await expect.poll(() => count(port, process.pid)).toBe(0);
  });
});
