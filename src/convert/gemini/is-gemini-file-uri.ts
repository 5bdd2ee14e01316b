/**
 * Pure: whether a `fileData.fileUri` names a file only Google can read: one uploaded to the Gemini Files API
 * (`https://generativelanguage.googleapis.com/v1beta/files/…`, readable with the uploader's key alone) or a
 * Cloud Storage object (`gs://…`). Another vendor given such a URI to fetch fails; a Gemini channel gets
 * the client's body as it is and never asks.
 */
export function isGeminiFileUri(uri: string): boolean {
  if (uri.startsWith('gs://')) return true;
  try {
    const url = new URL(uri);
    return url.hostname === 'generativelanguage.googleapis.com' && /\/files\//.test(url.pathname);
  } catch {
    return false;
  }
}
