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
 * PDF that hides both in compressed object streams is counted a page per 50 KB. At least 1. Searched in
 * the bytes (native `indexOf`, windows of a few hundred bytes): linear in the file, whatever it holds.
 */
export function countPdfPages(pdf: Buffer): number {
  let pages = 0;
  let largestCount = 0;
  // A real page tree has few nodes; a body made of them must not cost a window read each.
  let treesRead = 0;
  for (let at = pdf.indexOf(typeKey); at >= 0; at = pdf.indexOf(typeKey, at + typeKey.length)) {
    let next = at + typeKey.length;
    while (next < pdf.length && isPdfWhitespace(pdf[next]!)) next += 1;
    if (!startsWithAt(pdf, next, pageName)) continue;
    const after = pdf[next + pageName.length];
    if (after === 0x73 /* s: /Pages, the page tree */) {
      if (treesRead++ >= 256) continue;
      const window = pdf.subarray(Math.max(0, at - 256), next + 256).toString('latin1');
      for (const match of window.matchAll(/\/Count\s+(\d{1,7})/g)) largestCount = Math.max(largestCount, Number(match[1]));
    } else if (after === undefined || !isLetter(after)) pages += 1;
  }
  if (pages > 0) return pages;
  return largestCount > 0 ? largestCount : Math.max(1, Math.ceil(pdf.length / 50_000));
}

const typeKey = Buffer.from('/Type', 'latin1');
const pageName = Buffer.from('/Page', 'latin1');
const startsWithAt = (bytes: Buffer, at: number, prefix: Buffer): boolean => {
  if (at + prefix.length > bytes.length) return false;
  for (let index = 0; index < prefix.length; index += 1) if (bytes[at + index] !== prefix[index]) return false;
  return true;
};
const isPdfWhitespace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
const isLetter = (byte: number): boolean => (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);

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
