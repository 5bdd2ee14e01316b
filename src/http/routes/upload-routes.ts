import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { findExhaustedBalance } from '../../billing/find-exhausted-balance.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { requireObjectBody } from '../../relay/validate-body.js';
import { planUpload } from '../../uploads/plan-upload.js';
import { presignUpload } from '../../uploads/presign-upload.js';
import type { AuthenticatedCaller } from '../../auth/authenticate-token.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';
import { refreshCaller } from '../refresh-caller.js';

/**
 * Spec §4.10: a presigned PUT to the operator's object storage (UPLOAD_S3_*), for files that image and video
 * requests then name by `public_url`. The gateway never sees the file; the call costs nothing, but object
 * storage is not metered, so a key (or user) with no balance left is refused it like a relayed request.
 */
export async function uploadRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  app.post('/api/upload/presign', { config: { errorStyle: 'api' }, onRequest: authenticateCaller(services, 'openai') }, async (request) => {
    const caller = refreshCaller(services, request);
    const storage = services.environment.uploadStorage;
    if (storage === undefined) throw new GatewayError('not_implemented', 'Uploads are not configured on this gateway (UPLOAD_S3_* settings).');
    // All fields are optional: an empty body asks for the defaults.
    const body = request.body === undefined ? {} : requireObjectBody(request.body);
    const plan = planUpload(body, caller.user.id, randomUUID().replaceAll('-', ''), storage.maxBytes);
    await refuseExhaustedBalance(services, caller);
    return { success: true, message: '', data: await presignUpload(storage, plan, services.now()) };
  });
}

/**
 * 402 `insufficient_quota`, as admission answers a relayed request it cannot cover, when the token or its
 * user has no balance left. Balances move on every request and on other replicas: the rows are read, not
 * the in-memory catalog.
 */
async function refuseExhaustedBalance(services: AppServices, caller: AuthenticatedCaller): Promise<void> {
  const [token, user] = await Promise.all([services.repositories.tokens.get(caller.token.id), services.repositories.users.get(caller.user.id)]);
  if (token === undefined || user === undefined) throw new GatewayError('invalid_api_key', 'Incorrect API key provided.');
  const exhausted = findExhaustedBalance(token, user);
  if (exhausted === undefined) return;
  const whose = exhausted === 'token' ? 'this API key' : 'your account';
  throw new GatewayError('insufficient_quota', `Insufficient quota: ${whose} has no balance left, so no upload can be signed.`);
}
