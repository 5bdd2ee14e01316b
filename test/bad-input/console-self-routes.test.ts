/**
 * The console's own-user routes (`/api/user/login`, `/logout`, `/self`, `/api/log/self`, `/stat`,
 * `/api/task/self`, `/api/mj/self`) given bad input (probe session 37): malformed and mistyped login bodies,
 * bad or missing session cookies, and hostile query parameters. Every refusal is the `/api` envelope
 * `{success:false,message}` with its status, never a 500, and a filter is never silently dropped: new-api's
 * `start_timestamp` / `end_timestamp` on `/api/task/self` were ignored (every task listed), and a parameter
 * given twice was called "not an integer".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdmin, callGateway, logIn } from '../admin/admin-client.js';
import { expectEnvelope, startBadInputFixture, withoutCharge, type BadInputFixture } from './bad-input-fixture.js';

let fixture: BadInputFixture;
let cookie: string;
let userId: number;
const tasks = { early: 'task_' + 'a'.repeat(32), late: 'task_' + 'b'.repeat(32) };
/** Created at these unix ms: 1_800_000_000 s and 1_800_000_100 s. */
const created = { early: 1_800_000_000_000, late: 1_800_000_100_000 };

const asUser = (path: string) => callGateway(fixture.gateway, 'GET', path, { headers: { cookie } });
const login = (rawBody: string | undefined) => callGateway(fixture.gateway, 'POST', '/api/user/login', rawBody === undefined ? {} : { rawBody });

beforeAll(async () => {
  fixture = await startBadInputFixture();
  const made = await callAdmin(fixture.gateway, 'POST', '/api/admin/users', { body: { username: 'dave', password: 'password123', role: 'user', group: 'default', quota: 1000 } });
  expect(made.status, made.text).toBe(200);
  userId = made.body.data.id;
  cookie = await logIn(fixture.gateway, 'dave', 'password123');
  const { db } = fixture.gateway.gateway.services.database;
  for (const [name, publicId] of Object.entries(tasks) as ['early' | 'late', string][]) {
    await db.insertInto('tasks').values({
      public_id: publicId, kind: 'video', request_id: `req-${name}`, user_id: userId, token_id: 0, channel_id: null, key_fingerprint: null, model: 'sora-2', upstream_model: null, upstream_id: null,
      status: 'success', progress: 100, properties: '{}', result: null, fail_reason: null, quota: 1, token_debited: 1, user_debited: 1, refunded: 0, lease_until: 0, next_poll_at: 0,
      created_at: created[name], updated_at: created[name], completed_at: created[name],
    }).execute();
  }
}, 30_000);
afterAll(() => fixture.close());

describe('POST /api/user/login with bad bodies', () => {
  it.each([
    ['malformed JSON', '{', /not valid JSON/],
    ['an array', '[]', /Expected object/],
    ['a string', '"dave"', /Expected object/],
    ['null', 'null', /username: Required/],
    ['no body', undefined, /username: Required/],
    ['numbers for strings', '{"username":1,"password":2}', /username: Expected string/],
    ['an array for the username', '{"username":["dave"],"password":"password123"}', /username: Expected string, received array/],
    ['no password', '{"username":"dave"}', /password: Required/],
    ['a repeated username', '{"username":"x","username":"dave","password":"password123"}', /"username" more than once/],
  ])('%s → 400, no session', async (_label, body, message) => {
    const answer = await withoutCharge(fixture, () => login(body));
    expect(answer.status, answer.text).toBe(400);
    expect(expectEnvelope(answer, 'api')).toMatch(message);
    expect(answer.headers.getSetCookie().some((line) => line.startsWith('relay_session='))).toBe(false);
  });

  it('a body over max_body_mb → 413 in the /api envelope', async () => {
    const answer = await login(JSON.stringify({ username: 'dave', password: 'x'.repeat(100_000) }));
    expect(answer.status).toBe(413);
    expectEnvelope(answer, 'api');
  });
});

describe('session cookies', () => {
  it.each([
    ['none', undefined],
    ['garbage', 'relay_session=abc'],
    ['a forged value', `relay_session=${'9'.repeat(20)}.1.abc`],
  ])('%s → 401 on every own-user route', async (_label, value) => {
    for (const path of ['/api/user/self', '/api/log/self', '/api/log/self/stat', '/api/task/self', '/api/mj/self/']) {
      const answer = await callGateway(fixture.gateway, 'GET', path, value === undefined ? {} : { headers: { cookie: value } });
      expect(answer.status, `${path}: ${answer.text}`).toBe(401);
      expectEnvelope(answer, 'api');
    }
  });

  it('an API key is not a session', async () => {
    const answer = await callGateway(fixture.gateway, 'GET', '/api/log/self', { headers: { authorization: `Bearer sk-${'g'.repeat(48)}` } });
    expect(answer.status).toBe(401);
    expectEnvelope(answer, 'api');
  });
});

describe('hostile query parameters on the own-user lists', () => {
  const paged = ['/api/log/self', '/api/task/self', '/api/mj/self'];
  it.each([
    ['p=-1', 'p', /starts at 1/],
    ['p=0', 'p', /starts at 1/],
    ['p=1.5', 'p', /must be an integer/],
    ['p=abc', 'p', /must be an integer/],
    ['p=1e400', 'p', /must be an integer/],
    ['p=99999999999999999999', 'p', /must be an integer/],
    ['page_size=-5', 'page_size', /at least 1/],
    ['page_size=0', 'page_size', /at least 1/],
    ['page_size=NaN', 'page_size', /must be an integer/],
    ['p=1&p=2', 'p', /p is given more than once/],
    ['page_size=10&page_size=20', 'page_size', /page_size is given more than once/],
  ])('%s → 400 naming %s', async (query, _param, message) => {
    for (const path of paged) {
      const answer = await asUser(`${path}?${query}`);
      expect(answer.status, `${path}: ${answer.text}`).toBe(400);
      expect(expectEnvelope(answer, 'api'), path).toMatch(message);
    }
  });

  it('page_size=10^9 is capped at 100, not refused nor obeyed', async () => {
    for (const path of paged) {
      const answer = await asUser(`${path}?page_size=1000000000`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data.page_size).toBe(100);
    }
  });

  it.each([
    ['/api/log/self', 'token_id=abc', /token_id must be an integer/],
    ['/api/log/self/stat', 'status=weird', /status must be an integer/],
    ['/api/log/self', 'token_id=1&token_id=2', /token_id is given more than once/],
    ['/api/log/self/stat', 'start=1&start=2', /start is given more than once/],
    ['/api/log/self', 'model=a&model=b', /model is given more than once/],
    ['/api/log/self/stat', 'request_id=a&request_id=b', /request_id is given more than once/],
    ['/api/log/self', 'start_timestamp=1e12', /start_timestamp must be an integer/],
    ['/api/log/self', 'start=1&start_timestamp=1', /give the same bound/],
    ['/api/task/self', 'kind=bogus', /kind must be one of/],
    ['/api/task/self', 'status=bogus', /status must be one of/],
    ['/api/task/self', 'task_id=1&task_id=2', /task_id is given more than once/],
    ['/api/task/self', 'start_timestamp=abc', /start_timestamp must be an integer/],
    ['/api/task/self', 'end_timestamp=1800000000000', /end_timestamp must be unix seconds/],
    ['/api/task/self', 'end=1&end_timestamp=1', /give the same bound/],
    ['/api/mj/self', 'mj_id=a&mj_id=b', /mj_id is given more than once/],
    ['/api/mj/self', 'start_timestamp=1&start_timestamp=2', /start_timestamp is given more than once/],
  ])('%s?%s → 400', async (path, query, message) => {
    const answer = await asUser(`${path}?${query}`);
    expect(answer.status, answer.text).toBe(400);
    expect(expectEnvelope(answer, 'api')).toMatch(message);
  });

  it("/api/task/self reads new-api's start_timestamp / end_timestamp (unix seconds, both inclusive), as /api/log/self does", async () => {
    const ids = async (query: string) => {
      const answer = await asUser(`/api/task/self?${query}`);
      expect(answer.status, answer.text).toBe(200);
      return (answer.body.data.items as { task_id: string }[]).map((task) => task.task_id);
    };
    expect(await ids('')).toEqual([tasks.late, tasks.early]);
    expect(await ids('start_timestamp=1800000050')).toEqual([tasks.late]);
    expect(await ids('end_timestamp=1800000050')).toEqual([tasks.early]);
    expect(await ids('start_timestamp=1800000100&end_timestamp=1800000100')).toEqual([tasks.late]);
    expect(await ids('start_timestamp=0&end_timestamp=0')).toEqual([tasks.late, tasks.early]);
    // The gateway's own spelling (unix ms) still works.
    expect(await ids(`start=${created.late}`)).toEqual([tasks.late]);
  });
});
