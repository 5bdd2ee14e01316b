import { parseDataUrl } from '../convert/shared/parse-data-url.js';
import type { CanonicalMediaSource } from '../canonical/canonical-request.js';
import { estimatedTokensPerImage } from './count-tokens.js';

/**
 * What one PDF page is taken to cost: the top of Anthropic's 1,500–3,000 text tokens a page (Gemini bills
 * 258, OpenAI the page's text and picture). The reservation's estimate, and the local count of an upstream
 * that reports no usage, as the flat 1,000 is for an image.
 */
export const estimatedTokensPerPdfPage = 3000;

/**
 * Pure: the pages of a PDF, from its page objects (`/Type /Page`), else the largest page-tree `/Count`; a
 * PDF that hides both in compressed object streams is counted a page per 50 KB. At least 1.
 */
export function countPdfPages(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  const pages = text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  if (pages > 0) return pages;
  let count = 0;
  for (const match of text.matchAll(/\/Type\s*\/Pages[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages/g)) count = Math.max(count, Number(match[1] ?? match[2]));
  return count > 0 ? count : Math.max(1, Math.ceil(pdf.length / 50_000));
}

/**
 * The reservation's estimate of an attached file: a PDF given inline (base64, or a `data:` URL) by its pages;
 * anything else, or a PDF only linked, at the flat estimate images have.
 */
export function estimatedFileTokens(source: CanonicalMediaSource | string | undefined, mediaType?: string): number {
  const inline = typeof source === 'string' ? parseDataUrl(source) : source?.kind === 'base64' ? source : undefined;
  const type = inline?.mediaType ?? mediaType;
  if (inline === undefined || type === undefined || !/^application\/pdf\b/i.test(type)) return estimatedTokensPerImage;
  return Math.max(estimatedTokensPerImage, countPdfPages(Buffer.from(inline.data, 'base64')) * estimatedTokensPerPdfPage);
}
