import type { ChannelRecord } from '../../../catalog/catalog-records.js';
import { maskUrlCredentials } from '../../../security/mask-url-credentials.js';
import { maskSecret } from './mask-secret.js';

/** A channel as the admin API shows it: upstream keys and the base URL's user and password masked, never in clear. */
export function formatChannel(channel: ChannelRecord) {
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    base_url: maskUrlCredentials(channel.baseUrl),
    keys: channel.keys.map(maskSecret),
    key_count: channel.keys.length,
    models: channel.models,
    groups: channel.groups,
    priority: channel.priority,
    weight: channel.weight,
    model_mapping: channel.modelMapping,
    settings: channel.settings,
    enabled: channel.status === 'enabled',
    status: channel.status,
    status_reason: channel.statusReason,
    auto_disable: channel.autoDisable,
    used_quota: channel.usedQuota,
    request_count: channel.requestCount,
  };
}
