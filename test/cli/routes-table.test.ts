import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { readme } from './support.js';

/**
 * The README's routes table, written out as method + Fastify path (`{x}` → `:x`, `{a,b}` and `/mj-*`
 * expanded). Catch-alls (`/v1/models/*`, `/v1beta/models/*`) stand for the Gemini `:action` paths and
 * model ids the table names; the swagger UI's static files stand under `/api/admin/docs`.
 */
const mjActions = ['imagine', 'change', 'simple-change', 'action', 'modal', 'shorten', 'describe', 'blend', 'edits', 'video', 'upload-discord-images'];
const mjRoutes = (prefix: string) => [
  ...mjActions.map((action) => `POST ${prefix}/mj/submit/${action}`),
  `POST ${prefix}/mj/insight-face/swap`,
  `GET ${prefix}/mj/task/:id/fetch`,
  `GET ${prefix}/mj/task/:id/image-seed`,
  `GET ${prefix}/mj/image/:id`,
  `POST ${prefix}/mj/task/list-by-condition`,
];
const adminCrud = (name: string, id: string) => [`GET /api/admin/${name}`, `POST /api/admin/${name}`, `GET /api/admin/${name}/${id}`, `PUT /api/admin/${name}/${id}`, `DELETE /api/admin/${name}/${id}`];

const documented = new Set([
  'POST /v1/chat/completions',
  'POST /v1/messages',
  'POST /v1/messages/count_tokens',
  'POST /v1beta/models/*',
  'GET /v1beta/models/*',
  'POST /v1/models/*',
  'POST /v1/responses',
  'POST /v1/responses/compact',
  'POST /v1/responses/input_tokens',
  'GET /v1/responses/:id',
  'DELETE /v1/responses/:id',
  'POST /v1/responses/:id/cancel',
  'GET /v1/responses/:id/input_items',
  'POST /v1/conversations',
  'GET /v1/conversations/:id',
  'POST /v1/conversations/:id',
  'DELETE /v1/conversations/:id',
  'GET /v1/conversations/:id/items',
  'POST /v1/conversations/:id/items',
  'GET /v1/conversations/:id/items/:item',
  'DELETE /v1/conversations/:id/items/:item',
  'POST /pg/chat/completions',
  'POST /v1/completions',
  'POST /v1/embeddings',
  'POST /v1/engines/:model/embeddings',
  'POST /v1/moderations',
  'POST /v1/rerank',
  'POST /v1/web-reader/read',
  'POST /v1/web-search/search',
  'POST /v1/images/generations',
  'POST /v1/images/edits',
  'POST /v1/edits',
  'POST /v1/images/variations',
  'GET /v1/realtime',
  'GET /v1/models',
  'GET /v1/models/*',
  'GET /v1beta/models',
  'GET /v1beta/openai/models',
  'GET /api/usage/token/',
  'GET /api/usage/token', // the same route without its slash
  'GET /dashboard/billing/subscription',
  'GET /dashboard/billing/usage',
  'GET /v1/dashboard/billing/subscription',
  'GET /v1/dashboard/billing/usage',
  'POST /v1/videos',
  'POST /v1/video/generations',
  'POST /v1/videos/:id/remix',
  'GET /v1/videos/:id',
  'GET /v1/video/generations/:id',
  'GET /v1/videos/:id/content',
  'POST /kling/v1/videos/text2video',
  'POST /kling/v1/videos/image2video',
  'GET /kling/v1/videos/text2video/:id',
  'GET /kling/v1/videos/image2video/:id',
  'POST /api/asset/createMedia',
  'GET /api/asset/get',
  'POST /suno/submit/:action',
  'GET /suno/fetch/:id',
  'POST /suno/fetch',
  ...mjRoutes(''),
  ...['/mj-fast', '/mj-turbo', '/mj-relax'].flatMap(mjRoutes),
  'POST /api/upload/presign',
  ...adminCrud('channels', ':id'),
  ...adminCrud('tokens', ':id'),
  ...adminCrud('users', ':id'),
  ...adminCrud('prices', ':model'),
  ...adminCrud('groups', ':name'),
  'GET /api/admin/logs',
  'POST /api/admin/users/:id/quota',
  'POST /api/admin/tokens/:id/quota',
  'POST /api/admin/tokens/:id/key',
  'POST /api/admin/channels/:id/test',
  'GET /api/admin/logs/usage',
  'DELETE /api/admin/logs',
  'GET /api/admin/openapi.json',
  'GET /api/admin/docs',
  'POST /api/user/login',
  'POST /api/user/logout',
  'GET /api/user/self',
  'GET /api/log/self',
  'GET /api/log/self/stat',
  'GET /api/task/self',
  'GET /api/mj/self',
  'GET /api/mj/self/', // the same route with new-api's console's slash
  'GET /healthz',
  'GET /readyz',
]);

/** Fastify's printRoutes tree → `METHOD /path` (HEAD and OPTIONS left out: Fastify adds them). */
function registeredRoutes(tree: string): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (match === null) continue;
    const [, indent, segment, methods] = match as unknown as [string, string, string, string];
    const depth = indent.length / 4;
    stack.length = depth;
    // A wildcard child prints as `*` under its parent path, which has no trailing slash.
    stack.push(segment === '*' && depth > 0 ? '/*' : segment);
    const path = stack.join('');
    for (const method of methods.split(', ')) if (method !== 'HEAD' && method !== 'OPTIONS') routes.add(`${method} ${path}`);
  }
  return routes;
}

describe('README routes table vs registered routes', () => {
  let gateway: TestGateway;
  let registered: Set<string>;
  beforeAll(async () => {
    gateway = await startTestGateway();
    registered = registeredRoutes(gateway.gateway.app.printRoutes({ commonPrefix: false }));
  });
  afterAll(async () => gateway.close());

  it('every route the README documents is registered', () => {
    expect([...documented].filter((route) => !registered.has(route))).toEqual([]);
  });

  it('every registered route is in the README (swagger UI files under /api/admin/docs aside)', () => {
    const undocumented = [...registered].filter((route) => !documented.has(route) && !route.startsWith('GET /api/admin/docs/'));
    expect(undocumented).toEqual([]);
  });

  it('the README table spells out the routes that were missing from it', () => {
    const text = readme();
    expect(text).toContain('`/v1/dashboard/billing/{subscription,usage}`');
    expect(text).toContain('`GET /kling/v1/videos/{text2video,image2video}/{id}`');
    // The log routes are a list, its usage and a delete: no get, create or update of a log row.
    expect(text).toContain('`GET …/logs/usage`');
    expect(text).toContain('`DELETE …/logs?before=<unix ms>`');
    expect(text).not.toContain('`/api/admin/{channels,tokens,users,prices,groups,logs}`');
    expect(text).toContain('`POST /v1/conversations`');
    expect(text).toContain('`GET`, `DELETE /v1/conversations/{id}/items/{item_id}`');
  });
});
