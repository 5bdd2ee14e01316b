/**
 * From the limits audit: the failed-login throttle (20 failures per 20 minutes per IP + username) counts an
 * attempt when it admits it, so 60 guesses sent at once are not all verified: past the 20th they get 429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ config: { users: [{ username: 'victim', password: 'correct-horse', role: 'user', group: 'default', quota: 1, enabled: true }] } });
}, 30_000);
afterAll(async () => {
  await gateway.close();
}, 30_000);

function login(password: string): Promise<number> {
  return fetch(`${gateway.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'victim', password }) }).then(async (response) => {
    await response.text();
    return response.status;
  });
}

describe('audit: failed-login throttle under a burst', () => {
  it('60 wrong passwords sent at once: at most 20 are checked, the rest are 429', async () => {
    const statuses = await Promise.all(Array.from({ length: 60 }, (_, index) => login(`wrong-${index}`)));
    const checked = statuses.filter((status) => status !== 429).length;
    expect(checked).toBeLessThanOrEqual(20);
  }, 60_000);
});
