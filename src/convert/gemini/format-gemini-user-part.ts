import type { CanonicalUserPart } from '../../canonical/canonical-request.js';
import { formatGeminiMedia } from './format-gemini-media.js';
import type { GeminiWirePart } from './format-gemini-model-parts.js';

/** A canonical user part → a Gemini part (text, inlineData or fileData). */
export function formatGeminiUserPart(part: CanonicalUserPart, warnings: string[]): GeminiWirePart {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image':
      if (part.detail !== undefined) warnings.push(`image: detail "${part.detail}" has no Gemini form and was dropped`);
      return formatGeminiMedia(part.source, undefined, 'image/jpeg', warnings);
    case 'file':
      if (part.filename !== undefined) warnings.push(`file: the filename ${JSON.stringify(part.filename)} has no Gemini form and was dropped`);
      return formatGeminiMedia(part.source, part.mediaType, 'application/octet-stream', warnings);
    default: {
      const unhandled: never = part;
      throw new Error(`unhandled user part ${JSON.stringify(unhandled)}`);
    }
  }
}
