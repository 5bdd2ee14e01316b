import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.js';
import { changeEndsSessions } from '../../../security/change-ends-sessions.js';
import { hashPassword } from '../../../security/passwords.js';
import type { UserFields } from '../../../storage/users-repository.js';
import type { AppServices } from '../../app-services.js';
import { deleteUserAndTokens } from './delete-user-and-tokens.js';
import { describeAdminRoute, idParameter, pageQuerystring } from './describe-admin-route.js';
import { entityNotFound } from './entity-not-found.js';
import { formatUser } from './format-user.js';
import { parseIdParameter } from './parse-id-parameter.js';
import { parsePageRequest } from './parse-page-request.js';
import { parseRequestBody } from './parse-request-body.js';
import { quotaDeltaBodySchema } from './quota-delta-body-schema.js';
import { quotaDeltaRefusal } from './quota-delta-refusal.js';
import { refuseUnknownGroup } from './refuse-unknown-group.js';
import { refuseUnlessActorMayManage } from './refuse-unless-actor-may-manage.js';
import { successEnvelope } from './success-envelope.js';
import { createUserBodySchema, updateUserBodySchema } from './user-body-schemas.js';

const tag = 'users';

/** /api/admin/users: accounts, their roles, groups and wallets. */
export async function userRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const users = services.repositories.users;

  const requireUser = async (id: number) => {
    const user = await users.get(id);
    if (user === undefined) throw entityNotFound('User', id);
    return user;
  };
  const refuseTakenUsername = async (username: string, exceptId?: number) => {
    const existing = await users.getByUsername(username);
    if (existing !== undefined && existing.id !== exceptId) {
      throw new GatewayError('already_exists', `username: "${username}" is already taken.`, { param: 'username' });
    }
  };

  app.get('/users', { schema: describeAdminRoute({ tag, summary: 'List users', querystring: pageQuerystring }) }, async (request) => {
    const page = await users.list(parsePageRequest(request.query));
    return successEnvelope({ ...page, items: page.items.map(formatUser) });
  });

  app.get('/users/:id', { schema: describeAdminRoute({ tag, summary: 'Get a user', params: idParameter }) }, async (request) => {
    return successEnvelope(formatUser(await requireUser(parseIdParameter(request.params))));
  });

  app.post('/users', { schema: describeAdminRoute({ tag, summary: 'Create a user', body: createUserBodySchema }) }, async (request) => {
    const body = parseRequestBody(createUserBodySchema, request.body);
    refuseUnlessActorMayManage(request, body.role);
    refuseUnknownGroup(services.catalog.snapshot, body.group);
    await refuseTakenUsername(body.username);
    const fields: UserFields = {
      username: body.username,
      passwordHash: body.password === undefined ? null : await hashPassword(body.password),
      role: body.role,
      group: body.group,
      quota: body.quota ?? 0,
      unlimitedQuota: body.unlimited_quota ?? body.quota === undefined,
      enabled: body.enabled,
    };
    const id = await users.create(fields, services.now());
    await services.catalog.changed();
    return successEnvelope(formatUser(await requireUser(id)));
  });

  app.put('/users/:id', { schema: describeAdminRoute({ tag, summary: 'Update a user (partial)', params: idParameter, body: updateUserBodySchema }) }, async (request) => {
    const id = parseIdParameter(request.params);
    const body = parseRequestBody(updateUserBodySchema, request.body);
    const current = await requireUser(id);
    refuseUnlessActorMayManage(request, current.role, body.role);
    refuseUnknownGroup(services.catalog.snapshot, body.group);
    if (body.username !== undefined) await refuseTakenUsername(body.username, id);
    const fields: Partial<UserFields> = {
      ...(body.username === undefined ? {} : { username: body.username }),
      ...(body.password === undefined ? {} : { passwordHash: await hashPassword(body.password) }),
      ...(body.role === undefined ? {} : { role: body.role }),
      ...(body.group === undefined ? {} : { group: body.group }),
      ...(body.unlimited_quota === undefined ? {} : { unlimitedQuota: body.unlimited_quota }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
    };
    // A new password, a new role or a disable ends the user's console sessions (the cookie's version is stale).
    await users.update(id, fields, services.now(), { endSessions: changeEndsSessions(current, fields) });
    await services.catalog.changed();
    return successEnvelope(formatUser(await requireUser(id)));
  });

  app.delete('/users/:id', { schema: describeAdminRoute({ tag, summary: 'Delete a user and its tokens', params: idParameter }) }, async (request) => {
    const id = parseIdParameter(request.params);
    const user = await requireUser(id);
    refuseUnlessActorMayManage(request, user.role);
    // Demoting first makes removing a root deliberate; were the last root gone, the next start would create a passwordless one.
    if (user.role === 'root') throw new GatewayError('invalid_request', 'A root user cannot be deleted; disable it or change its role first.');
    if (!(await deleteUserAndTokens(services.database.db, id))) throw entityNotFound('User', id);
    await services.catalog.changed();
    return successEnvelope({ id });
  });

  app.post(
    '/users/:id/quota',
    { schema: describeAdminRoute({ tag, summary: "Adjust a user's balance", description: 'Adds `delta` atomically; refuses a result below zero.', params: idParameter, body: quotaDeltaBodySchema }) },
    async (request) => {
      const id = parseIdParameter(request.params);
      const { delta } = parseRequestBody(quotaDeltaBodySchema, request.body);
      refuseUnlessActorMayManage(request, (await requireUser(id)).role);
      if (!(await users.adjustQuota(id, delta, services.now()))) {
        throw quotaDeltaRefusal((await requireUser(id)).quota, delta);
      }
      await services.catalog.changed();
      return successEnvelope(formatUser(await requireUser(id)));
    },
  );
}
