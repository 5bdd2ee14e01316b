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
/** Object streams inflated per PDF: a PDF's dictionaries fit in far fewer. */
const maxObjectStreams = 256;
/** How far back from a page's `/Type` its `N G obj` header is looked for (Acrobat writes `/Type` last). */
const headerLookBack = 4096;

/**
 * What the page counts of one request may spend in all, however many PDFs it carries. Past any of these,
 * what is left stays out of sight (those PDFs keep the flat estimate).
 */
export class PdfScanBudget {
  /** Bytes object streams may still inflate to. */
  inflatedBytes = 2 * 1024 * 1024;
  /** Object streams that may still fail to inflate (corrupt data) before no more are tried. */
  failures = 4;
  /** `/ObjStm` markers, and page-tree dictionaries, that may still be looked at. */
  markers = 4096;
  trees = 1024;
}

/** What the page count has read so far, over the file and its object streams. */
interface PageTally {
  /** Page objects by object number (an incremental update appends a new copy of every page it touches). */
  pageObjects: Set<string>;
  /** The page tree's root `/Count` (its `/Pages` node without `/Parent`), the largest if updates wrote several. */
  rootCount: number | undefined;
  /** The largest `/Count` of any page-tree node: the pages at least, when the root is out of sight. */
  largestCount: number;
  treesRead: number;
  keys: number;
  budget: PdfScanBudget;
}

/**
 * Pure: the pages of a PDF, or undefined when it does not show them. The page tree's root `/Count` when
 * it is in sight (or a linearized file's `/N`), else the most of its page objects (`/Type /Page`, each
 * object counted once) and any page-tree node's `/Count`. Objects compressed in object streams
 * (`/Type /ObjStm`, as pdfTeX, Word and qpdf write them) are read too: each Flate stream inflated once, at
 * most {@link maxObjectStreams} of them, within the request's {@link PdfScanBudget}. A PDF that still
 * shows no page is left to the flat estimate rather than guessed from its size (a scan is a few pages of
 * many megabytes). An encrypted PDF's object streams are not read (they are not zlib data). Searched in
 * the bytes (native `indexOf`, bounded windows and counts): linear in the file, and bounded — per file and
 * per request — whatever it holds.
 */
export function countPdfPages(pdf: Buffer, budget = new PdfScanBudget()): number | undefined {
  const tally: PageTally = { pageObjects: new Set(), rootCount: undefined, largestCount: 0, treesRead: 0, keys: 0, budget };
  scanPageKeys(pdf, tally, objectHeaderBefore(pdf));
  for (const stream of objectStreams(pdf, budget)) scanPageKeys(stream.objects, tally, stream.objectAt);
  const linearized = Number(/\/Linearized\s[^>]{0,256}?\/N\s+(\d{1,6})/.exec(pdf.subarray(0, 2048).toString('latin1'))?.[1] ?? 0);
  const pages = tally.rootCount ?? (linearized > 0 ? linearized : Math.max(tally.pageObjects.size, tally.largestCount));
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
      // A real page tree has few nodes; a body made of them must not cost a dictionary read each.
      if (tally.treesRead++ >= 256 || tally.budget.trees <= 0) continue;
      tally.budget.trees -= 1;
      const node = dictionaryAround(bytes, at);
      const count = node === undefined ? undefined : /\/Count\s+(\d{1,7})\b/.exec(node)?.[1];
      if (node === undefined || count === undefined) continue;
      tally.largestCount = Math.max(tally.largestCount, Number(count));
      if (!/\/Parent\b/.test(node)) tally.rootCount = Math.max(tally.rootCount ?? 0, Number(count));
    } else if (after === undefined || !isLetter(after)) {
      tally.pageObjects.add(objectAt(at));
    }
  }
}

/**
 * The text of the innermost dictionary holding position `at` (from its `<<` to its matching `>>`), looked
 * for within 1 KB before and 4 KB after it (one pass over each: the innermost `<<` still open at `at` is
 * closed by the first `>>` after it that leaves no deeper one open); undefined when none is found there. Only
 * a node's own keys are read: in an object stream objects sit back to back, and a neighbour's `/Count`
 * (an outline's) is not the page tree's.
 */
function dictionaryAround(bytes: Buffer, at: number): string | undefined {
  const opens: number[] = [];
  for (let index = Math.max(0, at - 1024); index + 1 < at; index += 1) {
    if (bytes[index] === 0x3c && bytes[index + 1] === 0x3c) {
      opens.push(index);
      index += 1;
    } else if (bytes[index] === 0x3e && bytes[index + 1] === 0x3e) {
      opens.pop();
      index += 1;
    }
  }
  const open = opens.at(-1);
  const close = open === undefined ? undefined : closingAfter(bytes, at, Math.min(bytes.length, at + 4096));
  return open === undefined || close === undefined ? undefined : bytes.subarray(open, close).toString('latin1');
}

/** The position just after the `>>` that closes the dictionary open at `from`, if it closes before `limit`. */
function closingAfter(bytes: Buffer, from: number, limit: number): number | undefined {
  let depth = 1;
  for (let index = from; index + 1 < limit; index += 1) {
    if (bytes[index] === 0x3c && bytes[index + 1] === 0x3c) {
      depth += 1;
      index += 1;
    } else if (bytes[index] === 0x3e && bytes[index + 1] === 0x3e) {
      depth -= 1;
      index += 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/**
 * In the file itself: the object whose `N G obj` header comes before a position (else the position). Asked
 * for positions in ascending order, each search covers only the bytes since the one before, so a file of
 * nothing but keys costs one pass, not one window per key.
 */
function objectHeaderBefore(pdf: Buffer): (at: number) => string {
  let searchedTo = 0;
  let keyword = -1;
  return (at) => {
    const found = lastIndexWithin(pdf, objKeyword, at, Math.max(searchedTo, at - headerLookBack));
    if (found >= 0) keyword = found;
    searchedTo = at;
    // Not inside an object's header, or an `endobj` came between: no object is known.
    if (keyword < 0 || at - keyword > headerLookBack || (keyword >= 3 && pdf.toString('latin1', keyword - 3, keyword) === 'end')) return `@${at}`;
    return /(\d+)\s+\d+\s+$/.exec(pdf.toString('latin1', Math.max(0, keyword - 32), keyword))?.[1] ?? `@${at}`;
  };
}

/**
 * The Flate-compressed object streams of a PDF, each inflated once within the budget, with the object
 * number of a position in it: its header lists `number offset` pairs, offsets counted from `/First`.
 */
function objectStreams(pdf: Buffer, budget: PdfScanBudget): { objects: Buffer; objectAt: (at: number) => string }[] {
  const streams: { objects: Buffer; objectAt: (at: number) => string }[] = [];
  // An encrypted file's streams are ciphertext: nothing to inflate.
  if (pdf.includes(encryptKey)) return streams;
  const inflated = new Set<number>();
  for (let at = pdf.indexOf(objStmName); at >= 0 && inflated.size < maxObjectStreams && budget.inflatedBytes > 0 && budget.failures > 0 && budget.markers > 0; at = pdf.indexOf(objStmName, at + objStmName.length)) {
    budget.markers -= 1;
    const dictionaryStart = lastIndexWithin(pdf, dictionaryOpen, at, at - 1024);
    const streamAt = indexWithin(pdf, streamKeyword, at, at + 1024);
    // One stream, however many markers its dictionary holds.
    if (dictionaryStart < 0 || streamAt < 0 || inflated.has(streamAt)) continue;
    inflated.add(streamAt);
    const dictionary = pdf.subarray(dictionaryStart, streamAt).toString('latin1');
    const first = Number(/\/First\s+(\d{1,9})\b/.exec(dictionary)?.[1] ?? NaN);
    const count = Number(/\/N\s+(\d{1,9})\b/.exec(dictionary)?.[1] ?? NaN);
    // Flate alone (the way every writer compresses them), with no predictor to undo.
    if (!/\/Filter\s*(?:\/(?:FlateDecode|Fl)\b|\[\s*\/(?:FlateDecode|Fl)\s*\])/.test(dictionary) || /\/DecodeParms/.test(dictionary) || !(first >= 0) || !(count > 0)) continue;
    let start = streamAt + streamKeyword.length;
    if (pdf[start] === 0x0d) start += 1;
    if (pdf[start] === 0x0a) start += 1;
    // Not a zlib stream (RFC 1950: deflate, and a header check divisible by 31): nothing to try.
    if (start + 1 >= pdf.length || (pdf[start]! & 0x0f) !== 8 || ((pdf[start]! << 8) | pdf[start + 1]!) % 31 !== 0) continue;
    // A direct /Length; an indirect one (`12 0 R`) is looked past to `endstream` (no further than a stream
    // that could still inflate within the budget: compressed, it is no longer than inflated).
    const length = Number(/\/Length\s+(\d{1,10})\b(?!\s+\d+\s+R)/.exec(dictionary)?.[1] ?? NaN);
    const end = length >= 0 && start + length <= pdf.length ? start + length : indexWithin(pdf, endstreamKeyword, start, start + budget.inflatedBytes + 1024);
    if (end < 0) continue;
    let objects: Buffer;
    try {
      objects = inflateSync(pdf.subarray(start, end), { maxOutputLength: budget.inflatedBytes });
    } catch (error) {
      // Past what the request may inflate: nothing more is. Corrupt: this stream stays out of sight, and
      // after a few such, no more are tried (a crafted one may inflate far before its checksum fails).
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') budget.inflatedBytes = 0;
      else budget.failures -= 1;
      continue;
    }
    budget.inflatedBytes -= objects.length;
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
const objKeyword = Buffer.from('obj', 'latin1');
const objStmName = Buffer.from('/ObjStm', 'latin1');
const encryptKey = Buffer.from('/Encrypt', 'latin1');
const dictionaryOpen = Buffer.from('<<', 'latin1');
const streamKeyword = Buffer.from('stream', 'latin1');
const endstreamKeyword = Buffer.from('endstream', 'latin1');
const pageName = Buffer.from('/Page', 'latin1');
/** `bytes.lastIndexOf(needle, from)`, searching no lower than `lowest` (a search never runs the whole file back). */
function lastIndexWithin(bytes: Buffer, needle: Buffer, from: number, lowest: number): number {
  const floor = Math.max(0, lowest);
  if (from < floor) return -1;
  const found = bytes.subarray(floor, Math.min(bytes.length, from + needle.length)).lastIndexOf(needle);
  return found < 0 ? -1 : floor + found;
}

/** `bytes.indexOf(needle, from)`, searching no further than `highest`. */
function indexWithin(bytes: Buffer, needle: Buffer, from: number, highest: number): number {
  const found = bytes.subarray(from, Math.min(bytes.length, highest + needle.length)).indexOf(needle);
  return found < 0 ? -1 : from + found;
}

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
export function estimatedFileTokens(source: CanonicalMediaSource | string | undefined, mediaType?: string, budget = new PdfScanBudget()): number {
  const inline = typeof source === 'string' ? (parseDataUrl(source) ?? { mediaType: 'application/pdf', data: source }) : source?.kind === 'base64' ? source : undefined;
  const type = inline?.mediaType ?? mediaType;
  if (inline === undefined || type === undefined || !/^application\/pdf\b/i.test(type)) return estimatedTokensPerImage;
  const pages = countPdfPages(Buffer.from(inline.data, 'base64'), budget);
  return pages === undefined ? estimatedTokensPerImage : Math.max(estimatedTokensPerImage, pages * estimatedTokensPerPdfPage);
}
