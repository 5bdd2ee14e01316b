/**
 * A `multipart/form-data` request body as it arrived (bounded by the body limit while reading): kept as
 * bytes so a form that needs no change goes upstream untouched, boundary and all. Routes that take JSON
 * refuse it (validate-body.ts); the image edit route reads it (relay/images/image-form.ts).
 */
export class MultipartBody {
  constructor(
    readonly bytes: Buffer,
    /** The client's `Content-Type`, boundary included. */
    readonly contentType: string,
  ) {}
}
