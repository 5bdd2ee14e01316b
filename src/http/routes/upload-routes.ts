import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import { requireObjectBody } from '../../relay/validate-body.js';
import { planUpload } from '../../uploads/plan-upload.js';
import { presignUpload } from '../../uploads/presign-upload.js';
import type { AppServices } from '../app-services.js';
import { authenticateCaller } from '../middleware/authenticate-caller.js';

/**
 * Spec §4.10: a presigned PUT to the operator's object storage (UPLOAD_S3_*), for files that image and video
 * requests then name by `public_url`. The gateway never sees the file; the call costs nothing.
 */
export async function uploadRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  app.post('/api/upload/presign', { config: { errorStyle: 'api' }, onRequest: authenticateCaller(services, 'openai') }, async (request) => {
    const caller = request.caller;
    if (caller === undefined) throw new Error('the presign route runs after authentication');
    const storage = services.environment.uploadStorage;
    if (storage === undefined) throw new GatewayError('not_implemented', 'Uploads are not configured on this gateway (UPLOAD_S3_* settings).');
    // All fields are optional: an empty body asks for the defaults.
    const body = request.body === undefined ? {} : requireObjectBody(request.body);
    const plan = planUpload(body, caller.user.id, randomUUID().replaceAll('-', ''), storage.maxBytes);
    return { success: true, message: '', data: await presignUpload(storage, plan, services.now()) };
  });
}
