/**
 * From the side audit: docs/behaviour.md "Web reader and search" — "any other 2xx answer is one call". A 3xx
 * is no answer: a UniFuncs base_url written http:// (301 to https), or a moved endpoint, delivers nothing,
 * and the gateway follows no redirect. It used to be relayed (a Location-less redirect body) and charged
 * the per-call price; it is now a failed attempt: free, a 502 naming the redirect when no channel serves.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWebToolsFixture, type WebToolsFixture } from './web-tools-fixture.js';

let f: WebToolsFixture;
beforeAll(async () => {
  f = await startWebToolsFixture();
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => f.reset());

describe('an upstream redirect on the web tools', () => {
  for (const status of [301, 302, 307, 308]) {
    it(`a ${status} from the web reader's upstream costs nothing and is not relayed as a page`, async () => {
      f.upstream.enqueue({ status, headers: { location: 'https://api.unifuncs.com/api/web-reader/read' }, json: { code: 0, message: 'Moved', data: { content: 'not a page' } } });
      const { response, text, charge } = await f.charged(() => f.post('/v1/web-reader/read', JSON.stringify({ url: 'https://example.com', format: 'markdown' })));
      expect(charge).toBe(0);
      expect(response.status).toBe(502);
      expect(text).not.toContain('not a page');
      expect((JSON.parse(text) as { error: { message: string } }).error.message).toMatch(new RegExp(`The upstream answered a redirect \\(HTTP ${status}\\)`));
    });
  }

  it('a redirect from the search upstream costs nothing either', async () => {
    f.upstream.enqueue({ status: 302, headers: { location: 'https://api.unifuncs.com/' }, raw: ['<html>Found</html>'] });
    const { response, charge } = await f.charged(() => f.post('/v1/web-search/search', JSON.stringify({ query: 'relay' })));
    expect(charge).toBe(0);
    expect(response.status).toBe(502);
  });
});
