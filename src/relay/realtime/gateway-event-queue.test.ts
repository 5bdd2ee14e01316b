import { describe, expect, it } from 'vitest';
import { GatewayEventQueue } from './gateway-event-queue.js';

describe('GatewayEventQueue', () => {
  it('holds the gateway\'s events until released, then sends them in order and the next ones at once', () => {
    const sent: string[] = [];
    const queue = new GatewayEventQueue(1_000);
    expect(queue.offer('a', (text) => sent.push(text))).toBe(true);
    expect(queue.offer('b', (text) => sent.push(text))).toBe(true);
    expect(sent).toEqual([]);
    expect(queue.waiting).toBe(true);
    queue.release((text) => sent.push(`released ${text}`));
    expect(sent).toEqual(['released a', 'released b']);
    expect(queue.waiting).toBe(false);
    queue.offer('c', (text) => sent.push(text));
    queue.release((text) => sent.push(`again ${text}`));
    expect(sent).toEqual(['released a', 'released b', 'c']);
  });

  it('sends what it holds when the session ends first, in order, and nothing after', () => {
    const sent: string[] = [];
    const queue = new GatewayEventQueue(1_000);
    queue.offer('a', (text) => sent.push(text));
    queue.offer('b', (text) => sent.push(text));
    queue.end((text) => sent.push(`ending ${text}`));
    expect(sent).toEqual(['ending a', 'ending b']);
    expect(queue.waiting).toBe(false);
    expect(queue.offer('c', (text) => sent.push(text))).toBe(true);
    queue.release((text) => sent.push(text));
    queue.end((text) => sent.push(text));
    expect(sent).toEqual(['ending a', 'ending b']);
  });

  it('sends nothing more once ended after its release', () => {
    const sent: string[] = [];
    const queue = new GatewayEventQueue(1_000);
    queue.release((text) => sent.push(text));
    queue.offer('a', (text) => sent.push(text));
    queue.end((text) => sent.push(`ending ${text}`));
    queue.offer('b', (text) => sent.push(text));
    expect(sent).toEqual(['a']);
  });

  it('refuses to hold past its bound in bytes (what it held is kept)', () => {
    const sent: string[] = [];
    const queue = new GatewayEventQueue(6);
    expect(queue.offer('abc', (text) => sent.push(text))).toBe(true);
    expect(queue.offer('dé', (text) => sent.push(text))).toBe(true);
    expect(queue.offer('f', (text) => sent.push(text))).toBe(false);
    queue.release((text) => sent.push(text));
    expect(sent).toEqual(['abc', 'dé']);
  });
});
