/**
 * The admin API (`/api/admin/*`) given bad input (probe session 37): missing or wrong keys and a user's
 * session, unknown routes, path ids that are not ids, hostile paging and log filters, and bodies that are
 * not JSON objects or carry wrong types on the balance routes. Every refusal is the `/api` envelope
 * `{success:false,message}` with its status, never a 500, and nothing is stored or charged. (The write
 * bodies' every field is swept in type-confusion-admin-bodies.test.ts.) The channel test route answered a
 * path id that is not an id with 404 "Channel abc does not exist" (every other `:id` route: 400), and a
 * query parameter given twice was called "not an integer".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdmin, callGateway, logIn } from '../admin/admin-client.js';
import { expectEnvelope, keys, startBadInputFixture, withoutCharge, type BadInputFixture } from './bad-input-fixture.js';

let fixture: BadInputFixture;
let userCookie: string;
const admin = (method: string, path: string, options: { body?: unknown; rawBody?: string } = {}) => callAdmin(fixture.gateway, method, path, options);
const stored = async () => {
  const { db } = fixture.gateway.gateway.services.database;
  return {
    users: await db.selectFrom('users').selectAll().orderBy('id').execute(),
    tokens: await db.selectFrom('tokens').selectAll().orderBy('id').execute(),
    channels: await db.selectFrom('channels').select(['id', 'name', 'status']).orderBy('id').execute(),
  };
};

beforeAll(async () => {
  fixture = await startBadInputFixture();
  const made = await admin('POST', '/api/admin/users', { body: { username: 'erin', password: 'password123', role: 'user', group: 'default', quota: 1000 } });
  expect(made.status, made.text).toBe(200);
  userCookie = await logIn(fixture.gateway, 'erin', 'password123');
}, 30_000);
afterAll(() => fixture.close());

describe('who may call the admin API', () => {
  it.each([
    ['no Authorization', {}, 401],
    ['a wrong admin key', { authorization: 'Bearer nope' }, 401],
    ['a client API key', { authorization: `Bearer ${keys.good}` }, 401],
    ['Basic auth', { authorization: 'Basic YWRtaW46YWRtaW4=' }, 401],
    ["an ordinary user's session", 'user', 403],
  ] as const)('%s → %i', async (_label, headers, status) => {
    const answer = await callGateway(fixture.gateway, 'GET', '/api/admin/users', { headers: headers === 'user' ? { cookie: userCookie } : headers });
    expect(answer.status, answer.text).toBe(status);
    expectEnvelope(answer, 'api');
  });

  it('unknown admin routes and methods → 404 in the /api envelope', async () => {
    for (const [method, path] of [['GET', '/api/admin/nope'], ['PATCH', '/api/admin/users'], ['GET', '/api/nope']] as const) {
      const answer = await admin(method, path);
      expect(answer.status, answer.text).toBe(404);
      expectEnvelope(answer, 'api');
    }
  });
});

describe('path ids that are not ids', () => {
  const notIds = ['abc', '-1', '0', '1.5', '1e3', '0x1', '01', '%20', '9007199254740993', '99999999999999999999'];
  it.each(notIds)('%s → 400 on every :id route, nothing changed', async (id) => {
    const before = await stored();
    const routes: [string, string, unknown?][] = [];
    for (const entity of ['channels', 'tokens', 'users']) routes.push(['GET', `/api/admin/${entity}/${id}`], ['PUT', `/api/admin/${entity}/${id}`, {}], ['DELETE', `/api/admin/${entity}/${id}`]);
    routes.push(['POST', `/api/admin/tokens/${id}/quota`, { delta: 1 }], ['POST', `/api/admin/users/${id}/quota`, { delta: 1 }], ['POST', `/api/admin/tokens/${id}/key`], ['POST', `/api/admin/channels/${id}/test`]);
    for (const [method, path, body] of routes) {
      const answer = await admin(method, path, body === undefined ? {} : { body });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(400);
      expect(expectEnvelope(answer, 'api'), `${method} ${path}`).toMatch(/id in the path must be a positive integer/);
    }
    expect(await stored()).toEqual(before);
    expect(fixture.upstreamCalls()).toBe(0);
  });

  it('an id no row has → 404, on the channel test too', async () => {
    for (const path of ['/api/admin/channels/424242', '/api/admin/channels/424242/test']) {
      const answer = await admin(path.endsWith('test') ? 'POST' : 'GET', path);
      expect(answer.status, answer.text).toBe(404);
      expectEnvelope(answer, 'api');
    }
  });

  it('the channel test given model twice → 400 naming it, no upstream call; once → tested', async () => {
    const twice = await admin('POST', '/api/admin/channels/1/test?model=gpt-4o-mini&model=gpt-3.5-turbo-instruct');
    expect(twice.status, twice.text).toBe(400);
    expect(expectEnvelope(twice, 'api')).toMatch(/model is given more than once/);
    expect(fixture.upstreamCalls()).toBe(0);
    const once = await admin('POST', '/api/admin/channels/1/test?model=gpt-4o-mini');
    expect(once.status, once.text).toBe(200);
    expect(once.body).toMatchObject({ success: true, data: { model: 'gpt-4o-mini' } });
    fixture.openai.requests.length = 0;
  });
});

describe('paging and log filters', () => {
  const lists = ['channels', 'tokens', 'users', 'prices', 'groups', 'logs'].map((entity) => `/api/admin/${entity}`);
  it.each([
    ['p=-1', /starts at 1/],
    ['p=abc', /must be an integer/],
    ['p=1e400', /must be an integer/],
    ['page_size=-1', /at least 1/],
    ['page_size=1.5', /must be an integer/],
    ['p=1&p=2', /p is given more than once/],
    ['page_size=5&page_size=6', /page_size is given more than once/],
  ])('%s → 400 on every list', async (query, message) => {
    for (const path of lists) {
      const answer = await admin('GET', `${path}?${query}`);
      expect(answer.status, `${path}: ${answer.text}`).toBe(400);
      expect(expectEnvelope(answer, 'api'), path).toMatch(message);
    }
  });

  it('page_size=10^9 is capped at 100', async () => {
    for (const path of lists) {
      const answer = await admin('GET', `${path}?page_size=1000000000`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data.page_size).toBe(100);
    }
  });

  it.each([
    ['start=abc', /start must be an integer/],
    ['user_id=1.5', /user_id must be an integer/],
    ['user_id=1&user_id=2', /user_id is given more than once/],
    ['model=gpt-4o-mini&model=gpt-4o', /model is given more than once/],
    ['request_id=a&request_id=b', /request_id is given more than once/],
    ['status=bogus', /status must be an integer/],
    ['channel_id=1e400', /channel_id must be an integer/],
    ['end=99999999999999999999', /end must be an integer/],
  ])('logs?%s → 400 on the list and the usage', async (query, message) => {
    for (const path of ['/api/admin/logs', '/api/admin/logs/usage']) {
      const answer = await admin('GET', `${path}?${query}`);
      expect(answer.status, `${path}: ${answer.text}`).toBe(400);
      expect(expectEnvelope(answer, 'api')).toMatch(message);
    }
  });

  it.each([
    ['', /before .* is required/],
    ['before=abc', /must be an integer/],
    ['before=-1', /not negative/],
    ['before=1.5', /must be an integer/],
    ['before=1&before=2', /before is given more than once/],
  ])('DELETE logs?%s → 400, nothing deleted', async (query, message) => {
    const answer = await admin('DELETE', `/api/admin/logs?${query}`);
    expect(answer.status, answer.text).toBe(400);
    expect(expectEnvelope(answer, 'api')).toMatch(message);
  });
});

describe('balance adjustments with bad bodies', () => {
  it.each([
    ['malformed JSON', '{', /not valid JSON/],
    ['an array', '[]', /Expected object/],
    ['a number', '1', /Expected object/],
    ['null', 'null', /delta: Required/],
    ['a string delta', '{"delta":"5"}', /Expected number, received string/],
    ['"NaN"', '{"delta":"NaN"}', /Expected number, received string/],
    ['a float', '{"delta":1.5}', /integer/],
    ['1e400', '{"delta":1e400}', /integer/],
    ['-1e20', '{"delta":-1e20}', /between/],
    ['null delta', '{"delta":null}', /received null/],
    ['an unknown field', '{"delta":1,"x":2}', /Unknown field "x"/],
    ['a repeated delta', '{"delta":1,"delta":1000000}', /"delta" more than once/],
  ])('%s → 400 on the user and token quota routes, no balance moved', async (_label, rawBody, message) => {
    await withoutCharge(fixture, async () => {
      for (const path of ['/api/admin/users/2/quota', '/api/admin/tokens/1/quota']) {
        const answer = await admin('POST', path, { rawBody });
        expect(answer.status, `${path}: ${answer.text}`).toBe(400);
        expect(expectEnvelope(answer, 'api')).toMatch(message);
      }
    });
  });

  it('a body over max_body_mb → 413, nothing stored', async () => {
    const before = await stored();
    const answer = await admin('POST', '/api/admin/users', { rawBody: JSON.stringify({ username: 'big', password: 'x'.repeat(200_000) }) });
    expect(answer.status).toBe(413);
    expectEnvelope(answer, 'api');
    expect(await stored()).toEqual(before);
  });
});
