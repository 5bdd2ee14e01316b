import { inflateSync } from 'node:zlib';
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
/** Object streams inflated, and the bytes they may inflate to in all: a PDF's dictionaries are far smaller. */
const maxObjectStreams = 256;
const maxInflatedBytes = 4 * 1024 * 1024;

/** What the page count has read so far, over the file and its object streams. */
interface PageTally {
  /** Page objects by object number (an incremental update appends a new copy of every page it touches). */
  pageObjects: Set<string>;
  largestCount: number;
  treesRead: number;
  keys: number;
}

/**
 * Pure: the pages of a PDF, or undefined when it does not show them: the most of its page objects
 * (`/Type /Page`, each object counted once), a linearized file's `/N` and the largest page-tree `/Count`.
 * Objects compressed in object streams (`/Type /ObjStm`, as pdfTeX, Word and qpdf write them) are read
 * too: each Flate stream inflated, at most {@link maxObjectStreams} of them and {@link maxInflatedBytes}
 * in all. A PDF that still shows no page is left to the flat estimate rather than guessed from its size
 * (a scan is a few pages of many megabytes). Searched in the bytes (native `indexOf`, bounded windows and
 * counts): linear in the file, and bounded whatever it holds.
 */
export function countPdfPages(pdf: Buffer): number | undefined {
  const tally: PageTally = { pageObjects: new Set(), largestCount: 0, treesRead: 0, keys: 0 };
  scanPageKeys(pdf, tally, objectHeaderBefore(pdf));
  for (const stream of objectStreams(pdf)) scanPageKeys(stream.objects, tally, stream.objectAt);
  const linearized = Number(/\/Linearized\s[^>]{0,256}?\/N\s+(\d{1,6})/.exec(pdf.subarray(0, 2048).toString('latin1'))?.[1] ?? 0);
  // Page objects in the clear may be a few rewritten by an update, the rest compressed: the largest count wins.
  const pages = Math.max(tally.pageObjects.size, linearized, tally.largestCount);
  return pages > 0 ? Math.min(pages, maxPages) : undefined;
}

/** Counts the page objects and page-tree `/Count`s of `bytes`; `objectAt` names the object a position is in. */
function scanPageKeys(bytes: Buffer, tally: PageTally, objectAt: (at: number) => string): void {
  for (let at = bytes.indexOf(typeKey); at >= 0 && tally.keys < maxTypeKeys; at = bytes.indexOf(typeKey, at + typeKey.length)) {
    tally.keys += 1;
    let next = at + typeKey.length;
    while (next < bytes.length && isPdfWhitespace(bytes[next]!)) next += 1;
    if (!startsWithAt(bytes, next, pageName)) continue;
    const after = bytes[next + pageName.length];
    if (after === 0x73 /* s: /Pages, the page tree */) {
      // A real page tree has few nodes; a body made of them must not cost a window read each.
      if (tally.treesRead++ >= 256) continue;
      const window = bytes.subarray(Math.max(0, at - 256), next + 256).toString('latin1');
      for (const match of window.matchAll(/\/Count\s+(\d{1,7})/g)) tally.largestCount = Math.max(tally.largestCount, Number(match[1]));
    } else if (after === undefined || !isLetter(after)) {
      tally.pageObjects.add(objectAt(at));
    }
  }
}

/** In the file itself: the object whose `N G obj` header is shortly before a position (else the position). */
function objectHeaderBefore(pdf: Buffer): (at: number) => string {
  return (at) => {
    const before = pdf.subarray(Math.max(0, at - 128), at).toString('latin1');
    return /(\d+)\s+\d+\s+obj(?![\s\S]*\bobj)/.exec(before)?.[1] ?? `@${at}`;
  };
}

/**
 * The Flate-compressed object streams of a PDF, inflated (within the bounds above), each with the object
 * number of a position in it: its header lists `number offset` pairs, offsets counted from `/First`.
 */
function objectStreams(pdf: Buffer): { objects: Buffer; objectAt: (at: number) => string }[] {
  const streams: { objects: Buffer; objectAt: (at: number) => string }[] = [];
  let budget = maxInflatedBytes;
  let seen = 0;
  for (let at = pdf.indexOf(objStmName); at >= 0 && seen < maxObjectStreams && budget > 0; at = pdf.indexOf(objStmName, at + objStmName.length)) {
    seen += 1;
    const dictionaryStart = pdf.lastIndexOf(dictionaryOpen, at);
    const streamAt = pdf.indexOf(streamKeyword, at);
    if (dictionaryStart < 0 || at - dictionaryStart > 1024 || streamAt < 0 || streamAt - at > 1024) continue;
    const dictionary = pdf.subarray(dictionaryStart, streamAt).toString('latin1');
    const first = Number(/\/First\s+(\d{1,9})/.exec(dictionary)?.[1] ?? NaN);
    const count = Number(/\/N\s+(\d{1,9})/.exec(dictionary)?.[1] ?? NaN);
    // Flate alone (the way every writer compresses them), with no predictor to undo.
    if (!/\/Filter\s*(?:\/(?:FlateDecode|Fl)\b|\[\s*\/(?:FlateDecode|Fl)\s*\])/.test(dictionary) || /\/DecodeParms/.test(dictionary) || !(first >= 0) || !(count > 0)) continue;
    let start = streamAt + streamKeyword.length;
    if (pdf[start] === 0x0d) start += 1;
    if (pdf[start] === 0x0a) start += 1;
    // A direct /Length; an indirect one (`12 0 R`) is looked past to `endstream`.
    const length = Number(/\/Length\s+(\d{1,10})\b(?!\s+\d+\s+R)/.exec(dictionary)?.[1] ?? NaN);
    const end = length >= 0 && start + length <= pdf.length ? start + length : pdf.indexOf(endstreamKeyword, start);
    if (end < 0) continue;
    let objects: Buffer;
    try {
      objects = inflateSync(pdf.subarray(start, end), { maxOutputLength: budget });
    } catch {
      // Corrupt, or past the budget: what it holds stays out of sight.
      continue;
    }
    budget -= objects.length;
    streams.push({ objects, objectAt: objectAtOffsets(objects, first, Math.min(count, maxTypeKeys)) });
  }
  return streams;
}

/** An object stream's objects by position: its header's `number offset` pairs, offsets from `first`. */
function objectAtOffsets(objects: Buffer, first: number, count: number): (at: number) => string {
  const header = objects.subarray(0, Math.min(first, objects.length)).toString('latin1').trim().split(/\s+/, count * 2);
  const numbers: string[] = [];
  const offsets: number[] = [];
  for (let index = 0; index + 1 < header.length; index += 2) {
    numbers.push(header[index]!);
    offsets.push(first + Number(header[index + 1]));
  }
  return (at) => {
    // The last object starting at or before the position (offsets ascend in a well-formed stream).
    let low = 0;
    let high = offsets.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (offsets[middle]! <= at) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found < 0 ? `@objstm@${at}` : numbers[found]!;
  };
}

const typeKey = Buffer.from('/Type', 'latin1');
const objStmName = Buffer.from('/ObjStm', 'latin1');
const dictionaryOpen = Buffer.from('<<', 'latin1');
const streamKeyword = Buffer.from('stream', 'latin1');
const endstreamKeyword = Buffer.from('endstream', 'latin1');
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
