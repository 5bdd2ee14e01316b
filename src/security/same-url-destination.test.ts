import { describe, expect, it } from 'vitest';
import { sameUrlDestination } from './same-url-destination.js';

describe('sameUrlDestination', () => {
  it('takes URLs that differ only in case, a default port, trailing slashes, fragment or userinfo as one destination', () => {
    const base = 'https://api.example.com/v1';
    for (const other of ['https://api.example.com/v1/', 'HTTPS://API.EXAMPLE.COM/v1', 'https://api.example.com:443/v1', 'https://api.example.com/v1#y', 'https://user:password@api.example.com/v1']) {
      expect(sameUrlDestination(base, other), other).toBe(true);
    }
    expect(sameUrlDestination('http://127.0.0.1:8080', 'http://127.0.0.1:8080/')).toBe(true);
  });

  it('tells another scheme, host, port, path or query apart', () => {
    const base = 'https://api.example.com/v1';
    for (const other of [
      'http://api.example.com/v1',
      'https://api.example.com:8443/v1',
      'https://evil.example.com/v1',
      'https://api.example.com.evil.example/v1',
      'https://api.example.com@evil.example/v1',
      'wss://api.example.com/v1',
      'https://api.example.com',
      'https://api.example.com/v2',
      'https://api.example.com/V1',
      'https://api.example.com/v1/tenant-b',
      'https://api.example.com/v1?account=b',
    ]) {
      expect(sameUrlDestination(base, other), other).toBe(false);
    }
    expect(sameUrlDestination('http://127.0.0.1:8080', 'http://127.0.0.1:8081')).toBe(false);
    expect(sameUrlDestination('http://127.0.0.1:8080', 'http://localhost:8080')).toBe(false);
    expect(sameUrlDestination('http://127.0.0.1:8080', 'http://127.0.0.1:8080/proxy')).toBe(false);
  });

  it('takes a URL without a tuple origin, or no URL at all, as the same only as itself', () => {
    expect(sameUrlDestination('data:text/plain,a', 'data:text/plain,b')).toBe(false);
    expect(sameUrlDestination('custom://host-a/v1', 'custom://host-b/v1')).toBe(false);
    expect(sameUrlDestination('not a url', 'also not a url')).toBe(false);
    expect(sameUrlDestination('not a url', 'https://api.example.com')).toBe(false);
    expect(sameUrlDestination('custom://host-a/v1', 'custom://host-a/v1')).toBe(true);
  });
});
