import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UserRecord } from '../../../catalog/catalog-records.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import { generateApiKey, hashApiKey, visiblePrefixOf } from '../../../security/api-keys.js';
import type { TokenFields } from '../../../storage/tokens-repository.js';
import type { AppServices } from '../../app-services.js';
import { describeAdminRoute, idParameter, pageQuerystring } from './describe-admin-route.js';
import { entityNotFound } from './entity-not-found.js';
import { formatToken } from './format-token.js';
import { parseIdParameter } from './parse-id-parameter.js';
import { parseIntegerQuery } from './parse-integer-query.js';
import { parsePageRequest } from './parse-page-request.js';
import { parseRequestBody } from './parse-request-body.js';
import { quotaDeltaBodySchema } from './quota-delta-body-schema.js';
import { quotaDeltaRefusal } from './quota-delta-refusal.js';
import { refuseUnknownGroup } from './refuse-unknown-group.js';
import { refuseUnlessActorMayManageTokensOf } from './refuse-unless-actor-may-manage-tokens-of.js';
import { successEnvelope } from './success-envelope.js';
import { createTokenBodySchema, updateTokenBodySchema, type UpdateTokenBody } from './token-body-schemas.js';

const tag = 'tokens';
const shownOnce = 'The key is shown only this once: store it now.';

function newKey() {
  const key = generateApiKey();
  return { key, stored: { hash: hashApiKey(key), prefix: visiblePrefixOf(key) } };
}

/** /api/admin/tokens: API keys. The key itself is answered once, at creation or regeneration; only its hash is stored. */
export async function tokenRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const { tokens, users } = services.repositories;

  const requireToken = async (id: number) => {
    const token = await tokens.get(id);
    if (token === undefined) throw entityNotFound('Token', id);
    return token;
  };
  /** The token, once the actor is known to be allowed to write it (its owner is one the actor may manage). */
  const requireWritableToken = async (request: FastifyRequest, id: number) => {
    const token = await requireToken(id);
    refuseUnlessActorMayManageTokensOf(request, await users.get(token.userId));
    return token;
  };
  /**
   * No owner named: a console session's token is its own user's; the admin key's is the root user's (the
   * admin key belongs to no user). So an admin session never makes a token for an account above it by default.
   */
  const defaultOwnerOf = async (request: FastifyRequest): Promise<UserRecord | undefined> =>
    request.sessionUser ?? (await users.listAll()).find((user) => user.role === 'root');
  /** The owner a body names, or undefined when it names none. */
  const ownerNamedBy = async (body: Pick<UpdateTokenBody, 'user_id' | 'user'>): Promise<UserRecord | undefined> => {
    if (body.user_id !== undefined) {
      const owner = await users.get(body.user_id);
      if (owner === undefined) throw new GatewayError('invalid_request', `user_id: user ${body.user_id} does not exist.`, { param: 'user_id' });
      return owner;
    }
    if (body.user !== undefined) {
      const owner = await users.getByUsername(body.user);
      if (owner === undefined) throw new GatewayError('invalid_request', `user: user "${body.user}" does not exist.`, { param: 'user' });
      return owner;
    }
    return undefined;
  };
  const refuseTakenName = async (userId: number, name: string, exceptId?: number) => {
    const existing = await tokens.getByName(userId, name);
    if (existing !== undefined && existing.id !== exceptId) {
      throw new GatewayError('already_exists', `name: user ${userId} already has a token named "${name}".`, { param: 'name' });
    }
  };

  app.get(
    '/tokens',
    { schema: describeAdminRoute({ tag, summary: 'List tokens', querystring: { ...pageQuerystring, user_id: { type: 'integer', description: 'Only the tokens of this user.' } } }) },
    async (request) => {
      const page = await tokens.list(parsePageRequest(request.query), parseIntegerQuery(request.query, 'user_id'));
      return successEnvelope({ ...page, items: page.items.map(formatToken) });
    },
  );

  app.get('/tokens/:id', { schema: describeAdminRoute({ tag, summary: 'Get a token', params: idParameter }) }, async (request) => {
    return successEnvelope(formatToken(await requireToken(parseIdParameter(request.params))));
  });

  app.post(
    '/tokens',
    { schema: describeAdminRoute({ tag, summary: 'Create a token', description: 'Answers the full key in `data.key`, once. Owner defaults to the logged-in user (console session) or the root user (admin key).', body: createTokenBodySchema }) },
    async (request) => {
      const body = parseRequestBody(createTokenBodySchema, request.body);
      const owner = (await ownerNamedBy(body)) ?? (await defaultOwnerOf(request));
      if (owner === undefined) throw new GatewayError('invalid_request', 'user_id: no owner given and no root user exists.', { param: 'user_id' });
      refuseUnlessActorMayManageTokensOf(request, owner);
      refuseUnknownGroup(services.catalog.snapshot, body.group);
      await refuseTakenName(owner.id, body.name);
      const { key, stored } = newKey();
      const fields: TokenFields = {
        userId: owner.id,
        name: body.name,
        group: body.group ?? null,
        remainQuota: body.quota ?? 0,
        // As in the config file: a token given no quota is unlimited unless told otherwise.
        unlimitedQuota: body.unlimited_quota ?? body.quota === undefined,
        modelLimits: body.model_limits ?? null,
        expiresAt: body.expires_at,
        enabled: body.enabled,
        rateLimit: body.rate_limit,
      };
      const id = await tokens.create(fields, stored, services.now());
      await services.catalog.changed();
      return successEnvelope({ ...formatToken(await requireToken(id)), key }, shownOnce);
    },
  );

  app.put('/tokens/:id', { schema: describeAdminRoute({ tag, summary: 'Update a token (partial)', params: idParameter, body: updateTokenBodySchema }) }, async (request) => {
    const id = parseIdParameter(request.params);
    const body = parseRequestBody(updateTokenBodySchema, request.body);
    const current = await requireWritableToken(request, id);
    const owner = await ownerNamedBy(body);
    refuseUnlessActorMayManageTokensOf(request, owner);
    refuseUnknownGroup(services.catalog.snapshot, body.group);
    if (owner !== undefined || body.name !== undefined) await refuseTakenName(owner?.id ?? current.userId, body.name ?? current.name, id);
    const fields: Partial<TokenFields> = {
      ...(owner === undefined ? {} : { userId: owner.id }),
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.group === undefined ? {} : { group: body.group }),
      ...(body.unlimited_quota === undefined ? {} : { unlimitedQuota: body.unlimited_quota }),
      ...(body.model_limits === undefined ? {} : { modelLimits: body.model_limits }),
      ...(body.expires_at === undefined ? {} : { expiresAt: body.expires_at }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
      ...(body.rate_limit === undefined ? {} : { rateLimit: body.rate_limit }),
    };
    await tokens.update(id, fields, services.now());
    await services.catalog.changed();
    return successEnvelope(formatToken(await requireToken(id)));
  });

  app.delete('/tokens/:id', { schema: describeAdminRoute({ tag, summary: 'Delete a token', params: idParameter }) }, async (request) => {
    const id = parseIdParameter(request.params);
    await requireWritableToken(request, id);
    if (!(await tokens.delete(id))) throw entityNotFound('Token', id);
    await services.catalog.changed();
    return successEnvelope({ id });
  });

  app.post(
    '/tokens/:id/key',
    { schema: describeAdminRoute({ tag, summary: "Regenerate a token's key", description: 'The old key stops working at once; the new one is answered in `data.key`, once.', params: idParameter }) },
    async (request) => {
      const id = parseIdParameter(request.params);
      await requireWritableToken(request, id);
      const { key, stored } = newKey();
      await tokens.update(id, {}, services.now(), stored);
      await services.catalog.changed();
      return successEnvelope({ ...formatToken(await requireToken(id)), key }, shownOnce);
    },
  );

  app.post(
    '/tokens/:id/quota',
    { schema: describeAdminRoute({ tag, summary: "Adjust a token's balance", description: 'Adds `delta` atomically; refuses a result below zero.', params: idParameter, body: quotaDeltaBodySchema }) },
    async (request) => {
      const id = parseIdParameter(request.params);
      const { delta } = parseRequestBody(quotaDeltaBodySchema, request.body);
      await requireWritableToken(request, id);
      if (!(await tokens.adjustQuota(id, delta, services.now()))) throw quotaDeltaRefusal((await requireToken(id)).remainQuota, delta);
      await services.catalog.changed();
      return successEnvelope(formatToken(await requireToken(id)));
    },
  );
}
