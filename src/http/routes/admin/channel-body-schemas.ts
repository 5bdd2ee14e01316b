import type { z } from 'zod';
import type { ChannelStatus } from '../../../catalog/catalog-records.js';
import { configChannelSchema, refuseMappingLoops } from '../../../config/config-file-schema.js';
import type { ChannelFields } from '../../../storage/channels-repository.js';

/** The admin API takes a channel with the config file's fields, so a channel can move between the two unchanged. */
const channelObject = configChannelSchema.innerType();

const notBothKeyForms = (body: { key?: string | undefined; keys?: string[] | undefined }) => body.key === undefined || body.keys === undefined;
const notBothKeyFormsMessage = { message: 'send `key` or `keys`, not both', path: ['keys'] };

export const createChannelBodySchema = configChannelSchema
  .refine(notBothKeyForms, notBothKeyFormsMessage)
  .superRefine((body, context) => refuseMappingLoops(body.model_mapping, [], context));

/** Partial: an absent field keeps its value (no defaults are applied on update). */
export const updateChannelBodySchema = channelObject
  .partial()
  .refine(notBothKeyForms, notBothKeyFormsMessage)
  .superRefine((body, context) => refuseMappingLoops(body.model_mapping, [], context));

export type UpdateChannelBody = z.output<typeof updateChannelBodySchema>;

/** Maps the wire fields present in a body to repository fields. */
export function channelFieldsOf(body: UpdateChannelBody): Partial<ChannelFields> {
  const keys = body.keys ?? (body.key === undefined ? undefined : [body.key]);
  const status: ChannelStatus | undefined = body.enabled === undefined ? undefined : body.enabled ? 'enabled' : 'disabled';
  return {
    ...(body.name === undefined ? {} : { name: body.name }),
    ...(body.type === undefined ? {} : { type: body.type }),
    // Trailing slashes would double up when paths are appended to the base URL.
    ...(body.base_url === undefined ? {} : { baseUrl: body.base_url.replace(/\/+$/, '') }),
    ...(keys === undefined ? {} : { keys }),
    ...(body.models === undefined ? {} : { models: body.models }),
    ...(body.groups === undefined ? {} : { groups: body.groups }),
    ...(body.priority === undefined ? {} : { priority: body.priority }),
    ...(body.weight === undefined ? {} : { weight: body.weight }),
    ...(body.model_mapping === undefined ? {} : { modelMapping: body.model_mapping }),
    ...(body.settings === undefined ? {} : { settings: body.settings }),
    // An operator's enable clears the reason of an automatic disable; a disable records who did it.
    ...(status === undefined ? {} : { status, statusReason: status === 'enabled' ? null : 'disabled by an administrator' }),
    ...(body.auto_disable === undefined ? {} : { autoDisable: body.auto_disable }),
  };
}
