import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddressReader } from './client-address.js';

const request = (remoteAddress: string, forwardedFor?: string) => ({ socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('clientAddressReader', () => {
  it('reads the socket address unless a proxy is trusted', () => {
    expect(clientAddressReader(false)(request('127.0.0.1', '203.0.113.5'))).toBe('127.0.0.1');
  });

  it('reads the nearest untrusted X-Forwarded-For address behind trusted proxies, the leftmost when all are', () => {
    expect(clientAddressReader(['loopback'])(request('127.0.0.1', '198.51.100.7, 203.0.113.5'))).toBe('203.0.113.5');
    expect(clientAddressReader(['loopback'])(request('192.0.2.9', '203.0.113.5'))).toBe('192.0.2.9');
    expect(clientAddressReader(true)(request('127.0.0.1', '198.51.100.7, 203.0.113.5'))).toBe('198.51.100.7');
  });
});
