/**
 * A minimal Chrome DevTools Protocol client for the gateway's inspector (`node --inspect=127.0.0.1:0`):
 * V8 heap usage, with or without a forced full GC first. Used for the memory scenario, to tell a leak
 * (retained heap grows) from a lazy garbage collector (RSS grows, retained heap does not).
 */
import { WebSocket } from 'undici';

export async function connectInspector(handle, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let match;
  while ((match = /Debugger listening on (ws:\/\/\S+)/.exec(handle.stderr)) === null) {
    if (Date.now() > deadline) throw new Error(`${handle.name}: no inspector URL on stderr`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const socket = new WebSocket(match[1]);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error('inspector connection failed')), { once: true });
  });
  let nextId = 1;
  const pending = new Map();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    const waiter = pending.get(message.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    /** V8 heap in MB: { usedMb, totalMb }; with `gc`, after a full collection (the retained heap). */
    async heap({ gc = false } = {}) {
      if (gc) await call('HeapProfiler.collectGarbage');
      const { usedSize, totalSize } = await call('Runtime.getHeapUsage');
      return { usedMb: usedSize / 2 ** 20, totalMb: totalSize / 2 ** 20 };
    },
    close() {
      socket.close();
    },
  };
}
