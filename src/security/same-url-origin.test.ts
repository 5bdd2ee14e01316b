import { describe, expect, it } from 'vitest';
import { sameUrlOrigin } from './same-url-origin.js';

describe('sameUrlOrigin', () => {
  it('takes URLs that differ only in path, query, fragment, userinfo, case or a default port as one origin', () => {
    const base = 'https://api.example.com/v1';
    for (const other of ['https://api.example.com', 'https://api.example.com/other/v1?x=1#y', 'HTTPS://API.EXAMPLE.COM/v1', 'https://api.example.com:443/v1', 'https://user:password@api.example.com/v1']) {
      expect(sameUrlOrigin(base, other), other).toBe(true);
    }
    expect(sameUrlOrigin('http://127.0.0.1:8080', 'http://127.0.0.1:8080/proxy/')).toBe(true);
  });

  it('tells another scheme, host or port apart', () => {
    const base = 'https://api.example.com/v1';
    for (const other of ['http://api.example.com/v1', 'https://api.example.com:8443/v1', 'https://evil.example.com/v1', 'https://api.example.com.evil.example/v1', 'https://api.example.com@evil.example/v1', 'wss://api.example.com/v1']) {
      expect(sameUrlOrigin(base, other), other).toBe(false);
    }
    expect(sameUrlOrigin('http://127.0.0.1:8080', 'http://127.0.0.1:8081')).toBe(false);
    expect(sameUrlOrigin('http://127.0.0.1:8080', 'http://localhost:8080')).toBe(false);
  });

  it('takes a URL without a tuple origin, or no URL at all, as the same only as itself', () => {
    expect(sameUrlOrigin('data:text/plain,a', 'data:text/plain,b')).toBe(false);
    expect(sameUrlOrigin('custom://host-a/v1', 'custom://host-b/v1')).toBe(false);
    expect(sameUrlOrigin('not a url', 'also not a url')).toBe(false);
    expect(sameUrlOrigin('not a url', 'https://api.example.com')).toBe(false);
    expect(sameUrlOrigin('custom://host-a/v1', 'custom://host-a/v1')).toBe(true);
  });
});
