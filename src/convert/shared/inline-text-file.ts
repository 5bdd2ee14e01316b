import type { CanonicalMediaSource } from '../../canonical/canonical-request.js';

/**
 * The text of an inline `text/*` file (plain text, Markdown, CSV, source code): what a Chat upstream is sent
 * in its place (Chat has no file part for it), and what every vendor bills it as — text tokens. Undefined
 * for a file by URL or of another type.
 */
export function inlineTextOf(source: CanonicalMediaSource, mediaType: string | undefined): string | undefined {
  if (source.kind !== 'base64') return undefined;
  return (mediaType ?? source.mediaType).startsWith('text/') ? Buffer.from(source.data, 'base64').toString('utf8') : undefined;
}
