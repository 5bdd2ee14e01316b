import type { FastifyInstance } from 'fastify';
import type { TokenRecord, UserRecord } from '../../catalog/catalog-records.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { generateApiKey, hashApiKey, visiblePrefixOf } from '../../security/api-keys.js';
import { runChatRelay } from '../../relay/text/run-chat-relay.js';
import type { AppServices } from '../app-services.js';
import { authenticateSession } from '../middleware/authenticate-session.js';
import { refuseNonJsonSessionWrite } from '../middleware/refuse-non-json-session-write.js';
import { choosePlaygroundTokenName } from './choose-playground-token-name.js';

/**
 * `POST /pg/chat/completions` (spec §4.1): the chat route for a logged-in console user. It bills the
 * user's wallet through the user's playground token (`purpose: playground`, unlimited itself, so the
 * wallet is the limit), created on first use, so every request still has a token for reservations,
 * limits and logs. Only a token made here is used, never an API key that happens to share its name; an
 * administrator who disables it (or lets it expire) turns the playground off for that user: 403.
 */
export async function playgroundRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  const authenticate = authenticateSession(services);
  app.post('/pg/chat/completions', { config: { errorStyle: 'openai' }, onRequest: authenticate }, async (request, reply) => {
    const user = request.sessionUser;
    if (user === undefined) throw new Error('playground route runs after session authentication');
    refuseNonJsonSessionWrite(request);
    const token = await playgroundTokenOf(services, user);
    if (!token.enabled) throw new GatewayError('forbidden', 'The playground has been disabled for this account (its playground token is disabled).');
    if (token.expiresAt !== 0 && token.expiresAt <= Math.floor(services.now() / 1000)) {
      throw new GatewayError('forbidden', 'The playground has been disabled for this account (its playground token has expired).');
    }
    request.caller = { token, user, group: user.group, pinnedChannelId: undefined, keyHash: undefined, snapshot: services.catalog.snapshot };
    // The Chat route's relay, not a copy: what it does to a Chat request (the cleaning of another vendor's
    // thought signatures, the local counts, every text channel) the playground's requests get too.
    return runChatRelay(services.relay, request, reply);
  });
}

async function playgroundTokenOf(services: AppServices, user: UserRecord): Promise<TokenRecord> {
  const find = () => services.catalog.snapshot.playgroundTokensByUser.get(user.id);
  const existing = find();
  if (existing !== undefined) return existing;
  // First use only: the names the user's tokens already have.
  const tokensOfUser = () => [...services.catalog.snapshot.tokensById.values()].filter((token) => token.userId === user.id);
  // The key itself is never shown: the session is the credential here.
  const key = generateApiKey();
  try {
    await services.repositories.tokens.create(
      {
        userId: user.id,
        name: choosePlaygroundTokenName(tokensOfUser().map((token) => token.name)),
        group: null,
        remainQuota: 0,
        unlimitedQuota: true,
        modelLimits: null,
        expiresAt: 0,
        enabled: true,
        rateLimit: {},
        purpose: 'playground',
      },
      { hash: hashApiKey(key), prefix: visiblePrefixOf(key) },
      services.now(),
    );
  } catch {
    // Created meanwhile by a concurrent request or another replica (the name is unique per user).
  }
  await services.catalog.changed();
  const created = find();
  if (created === undefined) throw new Error('the playground token could not be created');
  return created;
}
