import { parseDataUrl } from '../convert/shared/parse-data-url.js';
import type { CanonicalMediaSource } from '../canonical/canonical-request.js';
import { estimatedTokensPerImage } from './count-tokens.js';

/**
 * What one PDF page is taken to cost: the top of Anthropic's 1,500–3,000 text tokens a page (Gemini bills
 * 258, OpenAI the page's text and picture). The reservation's estimate, and the local count of an upstream
 * that reports no usage, as the flat 1,000 is for an image.
 */
export const estimatedTokensPerPdfPage = 3000;

/** The most `/Type` keys read, and the most pages counted: no real PDF comes near either. */
const maxTypeKeys = 100_000;
const maxPages = 2_000;

/**
 * Pure: the pages of a PDF, or undefined when it does not show them: the most of its page objects
 * (`/Type /Page`, each object counted once: an incremental update appends a new copy of every page it
 * touches), a linearized file's `/N` and the largest page-tree `/Count`. A PDF whose page objects are
 * compressed in object streams may show none, and is then left to the flat estimate rather than guessed
 * from its size (a scan is a few pages of many megabytes); its object streams are not inflated. Searched in the bytes (native `indexOf`, bounded windows and
 * counts): linear in the file, and bounded whatever it holds.
 */
export function countPdfPages(pdf: Buffer): number | undefined {
  const pageObjects = new Set<string>();
  let largestCount = 0;
  let treesRead = 0;
  let keys = 0;
  for (let at = pdf.indexOf(typeKey); at >= 0 && keys < maxTypeKeys; at = pdf.indexOf(typeKey, at + typeKey.length)) {
    keys += 1;
    let next = at + typeKey.length;
    while (next < pdf.length && isPdfWhitespace(pdf[next]!)) next += 1;
    if (!startsWithAt(pdf, next, pageName)) continue;
    const after = pdf[next + pageName.length];
    if (after === 0x73 /* s: /Pages, the page tree */) {
      // A real page tree has few nodes; a body made of them must not cost a window read each.
      if (treesRead++ >= 256) continue;
      const window = pdf.subarray(Math.max(0, at - 256), next + 256).toString('latin1');
      for (const match of window.matchAll(/\/Count\s+(\d{1,7})/g)) largestCount = Math.max(largestCount, Number(match[1]));
    } else if (after === undefined || !isLetter(after)) {
      // The object this dictionary belongs to: `N G obj` shortly before it (else its own position).
      const before = pdf.subarray(Math.max(0, at - 128), at).toString('latin1');
      const header = /(\d+)\s+\d+\s+obj(?![\s\S]*\bobj)/.exec(before);
      pageObjects.add(header?.[1] ?? `@${at}`);
    }
  }
  const linearized = Number(/\/Linearized\s[^>]{0,256}?\/N\s+(\d{1,6})/.exec(pdf.subarray(0, 2048).toString('latin1'))?.[1] ?? 0);
  // Page objects in the clear may be a few rewritten by an update, the rest compressed: the largest count wins.
  const pages = Math.max(pageObjects.size, linearized, largestCount);
  return pages > 0 ? Math.min(pages, maxPages) : undefined;
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
 * The reservation's estimate of an attached file: a PDF given inline (base64 — a Chat `file_data` without a
 * `data:` prefix is one, as the Chat parser reads it — or a `data:` URL) by its pages when it shows them;
 * anything else, a PDF that hides its pages, or a PDF only linked, at the flat estimate images have.
 */
export function estimatedFileTokens(source: CanonicalMediaSource | string | undefined, mediaType?: string): number {
  const inline = typeof source === 'string' ? (parseDataUrl(source) ?? { mediaType: 'application/pdf', data: source }) : source?.kind === 'base64' ? source : undefined;
  const type = inline?.mediaType ?? mediaType;
  if (inline === undefined || type === undefined || !/^application\/pdf\b/i.test(type)) return estimatedTokensPerImage;
  const pages = countPdfPages(Buffer.from(inline.data, 'base64'));
  return pages === undefined ? estimatedTokensPerImage : Math.max(estimatedTokensPerImage, pages * estimatedTokensPerPdfPage);
}
