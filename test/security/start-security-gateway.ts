import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConfigChannel, ConfigFile } from '../../src/config/config-file-schema.js';
import type { DialectName } from '../../src/storage/database-schema.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import type { SecuritySuiteContext } from './relay-security-suite.js';

/** Fixed keys of the security fixture: one per way a caller can be refused, plus an admin. */
export const securityKeys = {
  valid: `sk-${'Va1id'.repeat(9)}abc`,
  disabledToken: `sk-${'Disab'.repeat(9)}abc`,
  expiredToken: `sk-${'Expir'.repeat(9)}abc`,
  disabledUser: `sk-${'Mallo'.repeat(9)}abc`,
  admin: `sk-${'Admin'.repeat(9)}abc`,
} as const;

/** A fake upstream as the fixture needs it: where it listens and what reached it. */
export interface CountingUpstream {
  url: string;
  requests: readonly unknown[];
  close(): Promise<void>;
}

export interface SecurityGatewayOptions {
  /** Starts the route's fake upstream (e.g. `startFakeOpenaiUpstream`); by default a stub that only counts. */
  upstream?: () => Promise<CountingUpstream>;
  /** The fixture channel's type (the provider that speaks to the upstream). */
  channelType?: ConfigChannel['type'];
  /** Model names the fixture uses; give real ones when the route's converter cares. */
  allowedModel?: string;
  forbiddenModel?: string;
  dialect?: DialectName;
  /** Extra config merged over the fixture (groups, settings, more channels, users or tokens). */
  config?: Partial<ConfigFile>;
}

/**
 * Starts the real gateway with the security fixture: a user whose valid key may use only `allowedModel`,
 * a disabled token, an expired token, a disabled user's token and a root token, all on one channel that
 * serves both (priced) `allowedModel` and `forbiddenModel`. A relay route joins the suite in one line:
 * `runRelaySecuritySuite(route, () => startSecurityGateway({ upstream: () => startFakeOpenaiUpstream() }))`.
 */
export async function startSecurityGateway(options: SecurityGatewayOptions = {}): Promise<SecuritySuiteContext> {
  const allowedModel = options.allowedModel ?? 'gpt-4o-mini';
  const forbiddenModel = options.forbiddenModel ?? 'gpt-4o';
  const upstream = await (options.upstream ?? startCountingUpstream)();
  const channel: ConfigChannel = {
    name: 'security-channel',
    type: options.channelType ?? 'openai',
    base_url: upstream.url,
    key: 'sk-upstream-key',
    models: [allowedModel, forbiddenModel],
    groups: ['default'],
    priority: 0,
    weight: 1,
    model_mapping: {},
    enabled: true,
    auto_disable: false,
    settings: {},
  };
  const price = { input: 1, output: 2 };
  const token = { expires_at: 0, enabled: true, unlimited_quota: true } as const;
  let server: TestGateway;
  try {
    server = await startTestGateway({
      ...(options.dialect === undefined ? {} : { dialect: options.dialect }),
      config: {
        ...options.config,
        // Priced, so that an admitted request goes on to the upstream instead of stopping at 400.
        prices: { [allowedModel]: price, [forbiddenModel]: price, ...options.config?.prices },
        channels: [channel, ...(options.config?.channels ?? [])],
        users: [
          { username: 'alice', role: 'user', group: 'default', enabled: true },
          { username: 'mallory', role: 'user', group: 'default', enabled: false },
          ...(options.config?.users ?? []),
        ],
        tokens: [
          { ...token, name: 'valid', user: 'alice', key: securityKeys.valid, model_limits: [allowedModel] },
          { ...token, name: 'disabled', user: 'alice', key: securityKeys.disabledToken, enabled: false },
          { ...token, name: 'expired', user: 'alice', key: securityKeys.expiredToken, expires_at: 1 },
          { ...token, name: 'of-disabled-user', user: 'mallory', key: securityKeys.disabledUser },
          { ...token, name: 'admin', key: securityKeys.admin },
          ...(options.config?.tokens ?? []),
        ],
      },
    });
  } catch (error) {
    await upstream.close();
    throw error;
  }
  const channelId = server.gateway.services.catalog.snapshot.channels.find((candidate) => candidate.name === channel.name)?.id;
  if (channelId === undefined) throw new Error('security fixture channel was not created');
  return {
    baseUrl: server.url,
    keys: securityKeys,
    allowedModel,
    forbiddenModel,
    channelId,
    upstreamRequests: () => upstream.requests.length,
    async close() {
      await server.close();
      await upstream.close();
    },
  };
}

/** An upstream that only counts: anything reaching it is a request the gateway let through. */
async function startCountingUpstream(): Promise<CountingUpstream> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"counting stub","type":"server_error"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
