import type { CanonicalMediaSource } from '../../canonical/canonical-request.js';
import { parseDataUrl } from '../shared/parse-data-url.js';
import { guessMediaType } from './guess-media-type.js';

/**
 * A canonical media source → Gemini `inlineData` (base64, and data: URLs) or `fileData` (any other URL:
 * Files API URIs, and public http(s) URLs on current models). `fileData` needs a mimeType: the known one,
 * else the URL's extension, else `fallbackMediaType` with a warning.
 */
export function formatGeminiMedia(
  source: CanonicalMediaSource,
  knownMediaType: string | undefined,
  fallbackMediaType: string,
  warnings: string[],
): { inlineData: { mimeType: string; data: string } } | { fileData: { mimeType: string; fileUri: string } } {
  if (source.kind === 'base64') return { inlineData: { mimeType: knownMediaType ?? source.mediaType, data: source.data } };
  const dataUrl = parseDataUrl(source.url);
  if (dataUrl !== undefined) return { inlineData: { mimeType: knownMediaType ?? dataUrl.mediaType, data: dataUrl.data } };
  let mimeType = knownMediaType ?? guessMediaType(source.url);
  if (mimeType === undefined) {
    warnings.push(`media ${source.url.slice(0, 200)}: no media type is known; sent as ${fallbackMediaType}`);
    mimeType = fallbackMediaType;
  }
  return { fileData: { mimeType, fileUri: source.url } };
}
