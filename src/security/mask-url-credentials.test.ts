import { describe, expect, it } from 'vitest';
import { maskUrlCredentials } from './mask-url-credentials.js';

describe('maskUrlCredentials', () => {
  it('masks the user and the password of a URL', () => {
    expect(maskUrlCredentials('https://relay-user:s3cret-pass@proxy.example.com/v1')).toBe('https://***:***@proxy.example.com/v1');
    expect(maskUrlCredentials('https://:s3cret@proxy.example.com')).toBe('https://***:***@proxy.example.com');
    expect(maskUrlCredentials('wss://token@proxy.example.com:8443/v1/realtime?model=x')).toBe('wss://***@proxy.example.com:8443/v1/realtime?model=x');
  });

  it('masks up to the last @ of the authority, as URL parsing reads it', () => {
    expect(maskUrlCredentials('https://user:p@ss@host.example')).toBe('https://***:***@host.example');
  });

  it('leaves a URL without userinfo as it is, an @ in its path or query included', () => {
    for (const url of ['https://api.example.com/v1', 'https://api.example.com/users/@me?to=a@b.example', 'https://api.example.com#x@y', 'not a url @ all']) expect(maskUrlCredentials(url)).toBe(url);
  });

  it('masks every URL in a text', () => {
    expect(maskUrlCredentials("The channel's base URL is not a URL: https://u:p@bad host, nor http://a:b@c")).toBe("The channel's base URL is not a URL: https://***:***@bad host, nor http://***:***@c");
  });
});
