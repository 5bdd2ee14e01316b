import type { UploadStorage } from '../config/read-environment.js';
import type { UploadPlan } from './plan-upload.js';

/** Spec §2.8: the `data` of a presign answer. */
export interface PresignedUpload {
  method: 'PUT';
  upload_url: string;
  object_key: string;
  public_url: string;
  expires_in: number;
  content_type: string;
  /** The size signed into the URL: the PUT must send exactly this Content-Length. */
  content_length?: number;
}

/**
 * An S3 SigV4 query-signed PUT URL for the planned object (aws4fetch; nothing hand-signed), valid for
 * `expiresIn` seconds from `now`. The content type is signed, and the size when the client gave one: the
 * upload must be sent with them.
 */
export async function presignUpload(storage: UploadStorage, plan: UploadPlan, now: number): Promise<PresignedUpload> {
  const path = plan.objectKey.split('/').map(encodeURIComponent).join('/');
  const url = new URL(`${storage.endpoint}/${storage.bucket}/${path}`);
  url.searchParams.set('X-Amz-Expires', String(plan.expiresIn));
  // Loaded on the first presign: most gateways never sign an upload, and none needs it on the request path.
  const { AwsV4Signer } = await import('aws4fetch');
  const signer = new AwsV4Signer({
    url: url.toString(),
    method: 'PUT',
    headers: plan.contentLength === undefined ? { 'content-type': plan.contentType } : { 'content-type': plan.contentType, 'content-length': String(plan.contentLength) },
    accessKeyId: storage.accessKeyId,
    secretAccessKey: storage.secretAccessKey,
    service: 's3',
    region: storage.region,
    signQuery: true,
    // Content-Type is among aws4fetch's unsigned headers unless all are signed: sign it, so the object gets the type announced.
    allHeaders: true,
    datetime: new Date(now).toISOString().replace(/[:-]|\.\d{3}/g, ''),
  });
  const signed = await signer.sign();
  return {
    method: 'PUT',
    upload_url: signed.url.toString(),
    object_key: plan.objectKey,
    public_url: `${storage.publicBaseUrl}/${path}`,
    expires_in: plan.expiresIn,
    content_type: plan.contentType,
    ...(plan.contentLength === undefined ? {} : { content_length: plan.contentLength }),
  };
}
