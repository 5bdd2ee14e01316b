import { GatewayError } from '../errors/gateway-error.js';
import { invalidParameter } from '../relay/validate-body.js';

/** Spec §4.10 / §8: how long a presigned upload URL lives, in seconds. */
export const defaultUploadSeconds = 900;
export const minimumUploadSeconds = 60;
export const maximumUploadSeconds = 3600;

/** What the client asked for (all optional, spec §4.10), and what the gateway decided. */
export interface UploadPlan {
  objectKey: string;
  contentType: string;
  expiresIn: number;
  /** The exact size of the file, in bytes, signed into the URL (storage refuses any other); undefined: not signed. */
  contentLength: number | undefined;
}

const contentTypesByExtension: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
};

/**
 * Key extensions refused whatever the signed type: storage that serves an object by its key's extension (a
 * CDN or a website endpoint in front of the bucket, a browser that saved it) would make a page or a script
 * of it. Uploads are images, video and audio; none of theirs is here.
 */
const documentExtensions: ReadonlySet<string> = new Set(['html', 'htm', 'shtml', 'xhtml', 'xht', 'svg', 'svgz', 'xml', 'xsl', 'xslt', 'js', 'mjs', 'cjs']);

/**
 * Pure: the object key (`uploads/user/{userId}[/{client prefix}]/{id}{.ext}`: always in the caller's own
 * space), the content type (the client's — an image, video or audio type, or `application/octet-stream` —
 * else the extension's, else `application/octet-stream`) and the
 * lifetime (default 900 s, clamped to 60–3600 as spec §8 says). Throws the 400 for a field of the wrong
 * type or a prefix that could leave its place (`..`, a leading `/`, characters S3 keys should not hold).
 */
export function planUpload(body: Record<string, unknown>, userId: number, objectId: string, maxBytes = 0): UploadPlan {
  const fileName = optionalString(body, 'file_name');
  const extension = fileName === undefined ? undefined : extensionOf(fileName);
  if (extension !== undefined && documentExtensions.has(extension)) {
    throw invalidParameter('file_name', `'.${extension}' names a web page or a script, not an image, video or audio file`);
  }
  const contentType = optionalString(body, 'content_type');
  if (contentType !== undefined && (!/^(?:image|video|audio)\/[\w.+-]+$|^application\/octet-stream$/i.test(contentType) || /^image\/svg|xml/i.test(contentType))) {
    // Uploads are references for image and video requests: HTML or scripts served from the operator's
    // storage are not — nor SVG, whose <script> runs when its public URL is opened, nor any XML type: a
    // browser renders every `+xml` type (`image/x+xml` too) as an XML document, where XHTML's <script> runs.
    throw invalidParameter('content_type', `'${contentType}' is not an image (other than SVG), video or audio type (nor an XML one), or application/octet-stream`);
  }
  // Every key is under the caller's own space; a client prefix only sorts files within it.
  const ownSpace = `uploads/user/${userId}`;
  const clientPrefix = readPrefix(body.prefix);
  const prefix = clientPrefix === undefined || clientPrefix === ownSpace || clientPrefix.startsWith(`${ownSpace}/`) ? (clientPrefix ?? ownSpace) : `${ownSpace}/${clientPrefix}`;
  return {
    objectKey: `${prefix}/${objectId}${extension === undefined ? '' : `.${extension}`}`,
    contentType: contentType ?? (extension === undefined ? undefined : contentTypesByExtension[extension]) ?? 'application/octet-stream',
    expiresIn: readExpiresIn(body.expires_in),
    contentLength: readContentLength(body.content_length, maxBytes),
  };
}

/**
 * `content_length`: the file's size in bytes, a whole number from 1; signed into the URL, so storage takes
 * a file of exactly that size. Required, and at most `maxBytes`, when the operator set a limit (UPLOAD_MAX_MB).
 */
function readContentLength(value: unknown, maxBytes: number): number | undefined {
  if (value === undefined || value === null) {
    if (maxBytes > 0) throw new GatewayError('invalid_request', `Missing required parameter: 'content_length' (uploads on this gateway are at most ${maxBytes} bytes; give the file's size).`, { param: 'content_length' });
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw invalidParameter('content_length', 'must be the file size in bytes, a whole number from 1');
  if (maxBytes > 0 && value > maxBytes) throw invalidParameter('content_length', `${value} bytes is over this gateway's upload limit of ${maxBytes} bytes`);
  return value;
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidParameter(name, `Expected string, received ${Array.isArray(value) ? 'array' : typeof value}`);
  return value;
}

/** The extension of a file name, lower case, when it is a plain one (letters and digits, at most 10). */
function extensionOf(fileName: string): string | undefined {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(fileName);
  return match?.[1]?.toLowerCase();
}

function readPrefix(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidParameter('prefix', 'Expected string');
  const prefix = value.replace(/\/+$/, '');
  const segments = prefix.split('/');
  if (prefix.length > 200 || !/^[A-Za-z0-9._\-/]+$/.test(prefix) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw invalidParameter('prefix', 'must be path segments of letters, digits, `.`, `_` and `-` (at most 200 characters, no empty, `.` or `..` segment)');
  }
  return prefix;
}

function readExpiresIn(value: unknown): number {
  if (value === undefined || value === null) return defaultUploadSeconds;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidParameter('expires_in', 'Expected a number of seconds');
  return Math.min(maximumUploadSeconds, Math.max(minimumUploadSeconds, Math.floor(value)));
}
