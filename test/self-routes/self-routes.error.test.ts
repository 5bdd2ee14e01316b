/**
 * `GET /api/log/self`, `GET /api/log/self/stat`, `GET /api/task/self` and `GET /api/mj/self` refuse in the `/api` envelope (`{success: false, message}`):
 * 401 without a console session — an API key is not one, nor a forged or ended cookie — and 400 naming the
 * query parameter for a filter or page value no row could match (the admin list's parsing, reused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callGateway, logIn } from '../admin/admin-client.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'e'.repeat(48)}`;
const routes = ['/api/log/self', '/api/log/self/stat', '/api/task/self', '/api/mj/self', '/api/mj/self/'];

describe('the self routes refuse', () => {
  let gateway: TestGateway;
  let session = '';

  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        users: [
          { username: 'erin', password: 'erin-password', role: 'user', group: 'default', quota: 1_000, enabled: true },
          { username: 'frank', password: 'frank-password', role: 'user', group: 'default', quota: 1_000, enabled: true },
        ],
        tokens: [{ name: 'k', user: 'erin', key, quota: 1_000, expires_at: 0, enabled: true }],
      },
    });
    session = await logIn(gateway, 'erin', 'erin-password');
  });
  afterAll(async () => gateway?.close());

  const get = (path: string, headers: Record<string, string> = { cookie: session }) => callGateway(gateway, 'GET', path, { headers });

  it.each(routes)('%s: 401 without a session, with an API key instead, or with a cookie claiming another user', async (route) => {
    for (const headers of [{}, { authorization: `Bearer ${key}` }] as Record<string, string>[]) {
      const answer = await get(route, headers);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ success: false, message: expect.stringContaining('log in') });
    }
    const [, value = ''] = session.split('=');
    const [, expiresAt, version, signature] = decodeURIComponent(value).split('.');
    const frank = (await callGateway(gateway, 'GET', '/api/admin/users', { headers: { authorization: `Bearer ${gateway.adminKey}` } })).body.data.items.find((user: { username: string }) => user.username === 'frank');
    const forged = `relay_session=${encodeURIComponent(`${frank.id}.${expiresAt}.${version}.${signature}`)}`;
    expect((await get(route, { cookie: forged })).status).toBe(401);
    expect((await get(route)).status).toBe(200);
  });

  it.each([
    ['/api/log/self?p=0', 'p'],
    ['/api/log/self?page_size=0', 'page_size'],
    ['/api/log/self?token_id=mine', 'token_id'],
    ['/api/log/self?token_id=99999999999', 'token_id'],
    ['/api/log/self?status=4xx', 'status'],
    ['/api/log/self?start=yesterday', 'start'],
    ['/api/log/self?end=1.5', 'end'],
    ['/api/log/self/stat?token_id=mine', 'token_id'],
    ['/api/log/self/stat?token_id=99999999999', 'token_id'],
    ['/api/log/self/stat?status=4xx', 'status'],
    ['/api/log/self/stat?start=yesterday', 'start'],
    ['/api/log/self/stat?end=1.5', 'end'],
    ['/api/log/self?start_timestamp=yesterday', 'start_timestamp'],
    ['/api/log/self/stat?end_timestamp=1.5', 'end_timestamp'],
    // A unix-ms value in new-api's seconds parameter (year 59000) is refused, not matched against nothing.
    ['/api/log/self?start_timestamp=1800000000000', 'start_timestamp'],
    ['/api/log/self/stat?end_timestamp=1800000000000', 'end_timestamp'],
    ['/api/task/self?p=-1', 'p'],
    ['/api/task/self?page_size=ten', 'page_size'],
    ['/api/task/self?status=done', 'status'],
    ['/api/task/self?kind=image', 'kind'],
    ['/api/task/self?task_id=video_0123456789abcdef', 'task_id'],
    ['/api/task/self?task_id=a&task_id=b', 'task_id'],
    ['/api/task/self?start=today', 'start'],
    ['/api/task/self?end=2e12', 'end'],
    ['/api/mj/self?p=0', 'p'],
    ['/api/mj/self?page_size=-5', 'page_size'],
    // The proxy's id (new-api's mj_id) is not one any client of the gateway was given.
    ['/api/mj/self?mj_id=1700000000000001', 'mj_id'],
    ['/api/mj/self?mj_id=a&mj_id=b', 'mj_id'],
    // new-api's console sends Date.parse() of an empty range as NaN.
    ['/api/mj/self/?start_timestamp=NaN', 'start_timestamp'],
    ['/api/mj/self?end_timestamp=1.8e12', 'end_timestamp'],
  ])('%s: 400 naming %s', async (path, parameter) => {
    const answer = await get(path);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, message: expect.stringContaining(parameter) });
  });

  it.each([
    ['/api/log/self?start=1800000000000&start_timestamp=1800000000', 'start', 'start_timestamp'],
    ['/api/log/self?end=1800000000000&end_timestamp=1800000000', 'end', 'end_timestamp'],
    ['/api/log/self/stat?start=1800000000000&start_timestamp=0', 'start', 'start_timestamp'],
    ['/api/log/self/stat?end_timestamp=1800000000&end=1800000000000', 'end', 'end_timestamp'],
  ])('%s: one end in both spellings, 400 naming %s and %s', async (path, msName, secondsName) => {
    const answer = await get(path);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ success: false, message: expect.stringMatching(new RegExp(`\\b${msName}\\b.*\\b${secondsName}\\b`)) });
  });

  it('accepts a task status in new-api\'s upper case or as stored, and an empty filter as none', async () => {
    for (const query of ['status=IN_PROGRESS', 'status=in_progress', 'status=NOT_START', 'kind=video&status=', 'task_id=', 'model=&token_id=']) {
      const route = query.startsWith('model') ? '/api/log/self' : '/api/task/self';
      const answer = await get(`${route}?${query}`);
      expect(answer.status, query).toBe(200);
      expect(answer.body.data).toEqual({ items: [], total: 0, page: 1, page_size: 20 });
    }
    const mj = await get('/api/mj/self/?p=1&page_size=10&mj_id=&start_timestamp=&end_timestamp=');
    expect(mj.status).toBe(200);
    expect(mj.body.data).toEqual({ items: [], total: 0, page: 1, page_size: 10 });
    const stat = await get('/api/log/self/stat?model=&token_id=');
    expect(stat.status).toBe(200);
    expect(stat.body.data).toEqual({ quota: 0, rpm: 0, tpm: 0 });
  });

  it('401 once the user logged out (every session of theirs ends)', async () => {
    const ended = await logIn(gateway, 'erin', 'erin-password');
    expect((await get('/api/task/self', { cookie: ended })).status).toBe(200);
    await callGateway(gateway, 'POST', '/api/user/logout', { headers: { cookie: ended } });
    for (const route of routes) expect((await get(route, { cookie: ended })).status).toBe(401);
  });
});
