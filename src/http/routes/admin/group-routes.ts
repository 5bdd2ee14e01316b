import type { FastifyInstance } from 'fastify';
import type { GroupRecord } from '../../../catalog/catalog-records.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import type { AppServices } from '../../app-services.js';
import { describeAdminRoute, pageQuerystring } from './describe-admin-route.js';
import { entityNotFound } from './entity-not-found.js';
import { createGroupBodySchema, updateGroupBodySchema } from './group-body-schemas.js';
import { pageOfItems } from './page-of-items.js';
import { parsePageRequest } from './parse-page-request.js';
import { parseRequestBody } from './parse-request-body.js';
import { refuseUnlessRoot } from './refuse-unless-root.js';
import { successEnvelope } from './success-envelope.js';

const tag = 'groups';
const defaultGroup = 'default';
const nameParameter = { name: { type: 'string' as const, description: 'The group name.' } };

/** /api/admin/groups: groups and their price ratios, keyed by name. */
export async function groupRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const pricing = services.repositories.pricing;

  // `default` always exists (ratio 1 until a row says otherwise), as the catalog treats it.
  const listGroups = async (): Promise<GroupRecord[]> => {
    const stored = await pricing.listGroups();
    const all = stored.some((group) => group.name === defaultGroup) ? stored : [{ name: defaultGroup, ratio: 1 }, ...stored];
    return all.sort((left, right) => left.name.localeCompare(right.name));
  };
  const findGroup = async (name: string) => (await listGroups()).find((group) => group.name === name);
  const requireGroup = async (name: string) => {
    const group = await findGroup(name);
    if (group === undefined) throw entityNotFound('Group', name);
    return group;
  };
  const nameOf = (params: unknown) => (params as { name: string }).name;

  app.get('/groups', { schema: describeAdminRoute({ tag, summary: 'List groups', querystring: pageQuerystring }) }, async (request) => {
    return successEnvelope(pageOfItems(await listGroups(), parsePageRequest(request.query)));
  });

  app.get('/groups/:name', { schema: describeAdminRoute({ tag, summary: 'Get a group', params: nameParameter }) }, async (request) => {
    return successEnvelope(await requireGroup(nameOf(request.params)));
  });

  app.post('/groups', { schema: describeAdminRoute({ tag, summary: 'Create a group', body: createGroupBodySchema }) }, async (request) => {
    refuseUnlessRoot(request, 'groups');
    const body = parseRequestBody(createGroupBodySchema, request.body);
    if ((await findGroup(body.name)) !== undefined) {
      throw new GatewayError('already_exists', `name: group "${body.name}" already exists; change it with PUT /api/admin/groups/:name.`, { param: 'name' });
    }
    await pricing.upsertGroup(body, services.now());
    await services.catalog.changed();
    return successEnvelope(await requireGroup(body.name));
  });

  app.put('/groups/:name', { schema: describeAdminRoute({ tag, summary: "Change a group's ratio", params: nameParameter, body: updateGroupBodySchema }) }, async (request) => {
    refuseUnlessRoot(request, 'groups');
    const name = nameOf(request.params);
    const body = parseRequestBody(updateGroupBodySchema, request.body);
    await requireGroup(name);
    await pricing.upsertGroup({ name, ratio: body.ratio }, services.now());
    await services.catalog.changed();
    return successEnvelope(await requireGroup(name));
  });

  app.delete('/groups/:name', { schema: describeAdminRoute({ tag, summary: 'Delete a group', params: nameParameter }) }, async (request) => {
    refuseUnlessRoot(request, 'groups');
    const name = nameOf(request.params);
    if (name === defaultGroup) throw new GatewayError('invalid_request', 'The default group cannot be deleted; change its ratio instead.');
    // Users and tokens left in a deleted group could no longer authenticate; move them first.
    const snapshot = services.catalog.snapshot;
    const users = [...snapshot.usersById.values()].filter((user) => user.group === name).length;
    const tokens = [...snapshot.tokensById.values()].filter((token) => token.group === name).length;
    if (users + tokens > 0) throw new GatewayError('invalid_request', `Group "${name}" is still used by ${users} user(s) and ${tokens} token(s); move them first.`);
    if (!(await pricing.deleteGroup(name))) throw entityNotFound('Group', name);
    await services.catalog.changed();
    return successEnvelope({ name });
  });
}
