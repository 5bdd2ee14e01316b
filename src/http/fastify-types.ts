import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import type { UserRecord } from '../catalog/catalog-records.js';
import type { ErrorStyle } from '../errors/render-error.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error envelope of this route; inferred from the path when absent. */
    errorStyle?: ErrorStyle;
    /** Every answer of this route sets x-request-id itself, so build-app.ts adds no hook for it. */
    setsRequestId?: boolean;
  }
  interface FastifyRequest {
    /** The authenticated API caller, set by the relay auth hook. */
    caller: AuthenticatedCaller | undefined;
    /** The exact request bytes, kept for byte-exact passthrough. */
    rawBody: Buffer | undefined;
    /** Set by routes whose envelope depends on the request (GET /v1/models picks by headers). */
    errorStyle: ErrorStyle | undefined;
    /** The console user of a valid login session, set by authenticateSession. */
    sessionUser: UserRecord | undefined;
  }
}

export {};
