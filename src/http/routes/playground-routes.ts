import type { FastifyInstance } from 'fastify';
import type { TokenRecord, UserRecord } from '../../catalog/catalog-records.js';
import { generateApiKey, hashApiKey, visiblePrefixOf } from '../../security/api-keys.js';
import { openaiEndpoints } from '../../relay/openai/openai-endpoints.js';
import { runOpenaiRelay } from '../../relay/openai/run-openai-relay.js';
import type { AppServices } from '../app-services.js';
import { authenticateSession } from '../middleware/authenticate-session.js';

const playgroundTokenName = 'playground';

/**
 * `POST /pg/chat/completions` (spec §4.1): the chat route for a logged-in console user. It bills the
 * user's wallet through a per-user `playground` token (unlimited itself, so the wallet is the limit),
 * created on first use, so every request still has a token for reservations, limits and logs.
 */
export async function playgroundRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const authenticate = authenticateSession(services);
  app.post('/pg/chat/completions', { config: { errorStyle: 'openai' }, preHandler: authenticate }, async (request, reply) => {
    const user = request.sessionUser;
    if (user === undefined) throw new Error('playground route runs after session authentication');
    const token = await playgroundTokenOf(services, user);
    request.caller = { token, user, group: user.group, pinnedChannelId: undefined };
    return runOpenaiRelay(services.relay, openaiEndpoints.chat, request, reply);
  });
}

async function playgroundTokenOf(services: AppServices, user: UserRecord): Promise<TokenRecord> {
  const find = () => [...services.catalog.snapshot.tokensById.values()].find((token) => token.userId === user.id && token.name === playgroundTokenName);
  const existing = find();
  if (existing !== undefined) return existing;
  // The key itself is never shown: the session is the credential here.
  const key = generateApiKey();
  try {
    await services.repositories.tokens.create(
      { userId: user.id, name: playgroundTokenName, group: null, remainQuota: 0, unlimitedQuota: true, modelLimits: null, expiresAt: 0, enabled: true, rateLimit: {} },
      { hash: hashApiKey(key), prefix: visiblePrefixOf(key) },
      services.now(),
    );
  } catch {
    // Created meanwhile by a concurrent request or another replica.
  }
  await services.catalog.changed();
  const created = find();
  if (created === undefined) throw new Error('the playground token could not be created');
  return created;
}
