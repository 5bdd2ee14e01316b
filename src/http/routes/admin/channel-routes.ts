import type { FastifyInstance } from 'fastify';
import { baseUrlProblem, channelKeyProblem, channelSettingsProblem } from '../../../config/config-file-schema.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import { maskUrlCredentials } from '../../../security/mask-url-credentials.js';
import type { ChannelFields } from '../../../storage/channels-repository.js';
import type { AppServices } from '../../app-services.js';
import { channelFieldsOf, createChannelBodySchema, updateChannelBodySchema } from './channel-body-schemas.js';
import { describeAdminRoute, idParameter, pageQuerystring } from './describe-admin-route.js';
import { entityNotFound } from './entity-not-found.js';
import { formatChannel } from './format-channel.js';
import { parseIdParameter } from './parse-id-parameter.js';
import { parsePageRequest } from './parse-page-request.js';
import { parseRequestBody } from './parse-request-body.js';
import { refuseKeyLessDestinationChange } from './refuse-key-less-destination-change.js';
import { refuseUnknownGroups } from './refuse-unknown-groups.js';
import { successEnvelope } from './success-envelope.js';

const tag = 'channels';

/**
 * /api/admin/channels: upstream channels. Keys (and a base URL's credentials) are write-only: answers show them
 * masked, and an update that sends the channel to another origin must give its keys again.
 */
export async function channelRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const channels = services.repositories.channels;

  const requireChannel = async (id: number) => {
    const channel = await channels.get(id);
    if (channel === undefined) throw entityNotFound('Channel', id);
    return channel;
  };
  const refuseTakenName = async (name: string, exceptId?: number) => {
    const existing = await channels.getByName(name);
    if (existing !== undefined && existing.id !== exceptId) {
      throw new GatewayError('already_exists', `name: a channel named "${name}" already exists.`, { param: 'name' });
    }
  };

  app.get('/channels', { schema: describeAdminRoute({ tag, summary: 'List channels', querystring: pageQuerystring }) }, async (request) => {
    const page = await channels.list(parsePageRequest(request.query));
    return successEnvelope({ ...page, items: page.items.map(formatChannel) });
  });

  app.get('/channels/:id', { schema: describeAdminRoute({ tag, summary: 'Get a channel', params: idParameter }) }, async (request) => {
    return successEnvelope(formatChannel(await requireChannel(parseIdParameter(request.params))));
  });

  app.post('/channels', { schema: describeAdminRoute({ tag, summary: 'Create a channel', body: createChannelBodySchema }) }, async (request) => {
    const body = parseRequestBody(createChannelBodySchema, request.body);
    refuseUnknownGroups(services.catalog.snapshot, body.groups);
    await refuseTakenName(body.name);
    // The create schema applies every default, so all fields are present.
    const id = await channels.create(channelFieldsOf(body) as ChannelFields, services.now());
    await services.catalog.changed();
    return successEnvelope(formatChannel(await requireChannel(id)));
  });

  app.put('/channels/:id', { schema: describeAdminRoute({ tag, summary: 'Update a channel (partial)', params: idParameter, body: updateChannelBodySchema }) }, async (request) => {
    const id = parseIdParameter(request.params);
    const body = parseRequestBody(updateChannelBodySchema, request.body);
    refuseUnknownGroups(services.catalog.snapshot, body.groups);
    const current = await requireChannel(id);
    // The key shape a type needs is checked on the channel as it will be, not on the fields sent alone.
    const keyProblem = channelKeyProblem(body.type ?? current.type, body.keys ?? (body.key === undefined ? current.keys : [body.key]));
    if (keyProblem !== undefined) throw new GatewayError('invalid_request', `key: ${keyProblem}`, { param: body.keys === undefined ? 'key' : 'keys' });
    const settingsProblem = channelSettingsProblem(body.type ?? current.type, body.settings ?? current.settings);
    if (settingsProblem !== undefined) throw new GatewayError('invalid_request', `settings.${settingsProblem.key}: ${settingsProblem.message}`, { param: `settings.${settingsProblem.key}` });
    if (body.name !== undefined) await refuseTakenName(body.name, id);
    const fields = channelFieldsOf(body);
    // A console that sends back the base URL it was shown (its credentials masked) keeps the stored one.
    if (fields.baseUrl !== undefined && fields.baseUrl !== current.baseUrl && fields.baseUrl === maskUrlCredentials(current.baseUrl)) delete fields.baseUrl;
    // Checked after that: the stored URL sent back (masked or not) from before credentials were refused is no new one.
    const urlProblem = fields.baseUrl === undefined || fields.baseUrl === current.baseUrl ? undefined : baseUrlProblem(fields.baseUrl);
    if (urlProblem !== undefined) throw new GatewayError('invalid_request', `base_url: ${urlProblem}`, { param: 'base_url' });
    refuseKeyLessDestinationChange(current.baseUrl, fields.baseUrl, fields.keys !== undefined);
    await channels.update(id, fields, services.now());
    // An operator's edit (a new key, re-enabling) starts the channel afresh: no cooldown, no key set aside.
    services.relay.health.reset(id);
    await services.catalog.changed();
    return successEnvelope(formatChannel(await requireChannel(id)));
  });

  app.delete('/channels/:id', { schema: describeAdminRoute({ tag, summary: 'Delete a channel', params: idParameter }) }, async (request) => {
    const id = parseIdParameter(request.params);
    if (!(await channels.delete(id))) throw entityNotFound('Channel', id);
    await services.catalog.changed();
    return successEnvelope({ id });
  });
}
