import { deflateSync } from 'node:zlib';
import { objectStreamObject } from '../../test/billing-edges/pdf-builders.js';
import { describe, expect, it } from 'vitest';
import { countPdfPages, estimatedFileTokens, estimatedTokensPerPdfPage } from './estimate-attachment-tokens.js';
import { estimatedTokensPerImage } from './count-tokens.js';

/** A minimal PDF with `pages` page objects (and its page tree's /Count). */
function pdf(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, index) => `${index + 3} 0 R`).join(' ');
  const objects = Array.from({ length: pages }, (_, index) => `${index + 3} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n`).join('');
  return Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj\n${objects}trailer\n<< /Root 1 0 R >>\n%%EOF\n`, 'latin1');
}

describe('countPdfPages', () => {
  it('counts page objects, not the page tree', () => {
    expect(countPdfPages(pdf(1))).toBe(1);
    expect(countPdfPages(pdf(30))).toBe(30);
  });

  it("reads a linearized file's /N or the page tree's /Count when the page objects are compressed out of sight, else nothing (never the size: a scan is a few pages of many megabytes)", () => {
    expect(countPdfPages(Buffer.from('%PDF-1.7\n2 0 obj\n<< /Type /Pages /Count 12 /Kids [3 0 R] >>\nendobj\n<< /Count 7 /Type /Pages >>', 'latin1'))).toBe(12);
    expect(countPdfPages(Buffer.from('%PDF-1.5\n1 0 obj\n<< /Linearized 1 /L 81234 /H [ 700 160 ] /O 4 /E 30000 /N 36 /T 80000 >>\nendobj\n', 'latin1'))).toBe(36);
    expect(countPdfPages(Buffer.alloc(8_000_000, 0x78))).toBeUndefined();
  });

  it('counts a page object once however many times incremental updates rewrote it', () => {
    const base = pdf(3).toString('latin1');
    const update = '3 0 obj\n<< /Type /Page /Parent 2 0 R /Annots [9 0 R] >>\nendobj\n4 0 obj\n<</Type/Page/Parent 2 0 R>>\nendobj\n';
    expect(countPdfPages(Buffer.from(base + update + update + update, 'latin1'))).toBe(3);
  });

  it('stays bounded on a body made of nothing but keys', () => {
    expect(countPdfPages(Buffer.from('/Type /Page '.repeat(500_000), 'latin1'))).toBeLessThanOrEqual(2000);
  });
});

const objectStream = objectStreamObject;

const pageObjects = (from: number, count: number, extra = ''): [number, string][] =>
  Array.from({ length: count }, (_, index): [number, string] => [from + index, `<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]${extra}>>`]);

describe('countPdfPages, objects in compressed object streams', () => {
  it('counts the page objects of object streams, however their dictionary is laid out', () => {
    for (const indirectLength of [true, false]) {
      // No page tree /Count anywhere: the pages are known only from the page objects inside the streams.
      const file = `%PDF-1.5\n${objectStream(100, pageObjects(3, 25), indirectLength)}${objectStream(200, pageObjects(28, 12), indirectLength)}%%EOF\n`;
      expect(countPdfPages(Buffer.from(file, 'latin1'))).toBe(37);
    }
  });

  it('counts a page once when an incremental update re-wrote it in a new object stream', () => {
    const original = objectStream(100, pageObjects(3, 10), false);
    const update = objectStream(200, pageObjects(3, 10, '/Annots[300 0 R]'), false);
    expect(countPdfPages(Buffer.from(`%PDF-1.5\n${original}%%EOF\n${update}%%EOF\n`, 'latin1'))).toBe(10);
  });

  it("reads the page tree's /Count inside an object stream", () => {
    const file = `%PDF-1.5\n${objectStream(100, [[1, '<</Type/Catalog/Pages 2 0 R>>'], [2, '<</Type/Pages/Count 140/Kids[3 0 R]>>'], ...pageObjects(3, 1)], true)}%%EOF\n`;
    expect(countPdfPages(Buffer.from(file, 'latin1'))).toBe(140);
  });

  it('leaves a corrupt stream, one with a predictor, and a stream inflating past the bound out of sight (the flat estimate then applies)', () => {
    const corrupt = `%PDF-1.5\n1 0 obj\n<</Type/ObjStm/N 3/First 12/Length 40/Filter/FlateDecode>>\nstream\n${'z'.repeat(40)}\nendstream\nendobj\n`;
    expect(countPdfPages(Buffer.from(corrupt, 'latin1'))).toBeUndefined();
    const predicted = objectStream(100, pageObjects(3, 5), false).replace('/First', '/DecodeParms<</Predictor 12/Columns 4>>/First');
    expect(countPdfPages(Buffer.from(`%PDF-1.5\n${predicted}`, 'latin1'))).toBeUndefined();
    // 4.5 MB of pages deflate to a few KB: inflated only as far as the bound.
    const bomb = deflateSync(Buffer.from('<</Type/Page>>\n'.repeat(300_000), 'latin1')).toString('latin1');
    const file = `%PDF-1.5\n1 0 obj\n<</Type/ObjStm/N 1/First 4/Length ${bomb.length}/Filter/FlateDecode>>\nstream\n${bomb}\nendstream\nendobj\n`;
    expect(countPdfPages(Buffer.from(file, 'latin1'))).toBeUndefined();
  });
});

describe('estimatedFileTokens', () => {
  it('counts an inline PDF by its pages, base64 or as a data URL', () => {
    const data = pdf(30).toString('base64');
    expect(estimatedFileTokens({ kind: 'base64', mediaType: 'application/pdf', data })).toBe(30 * estimatedTokensPerPdfPage);
    expect(estimatedFileTokens(`data:application/pdf;base64,${data}`)).toBe(30 * estimatedTokensPerPdfPage);
  });

  it("reads a Chat file_data without a data: prefix as a PDF, as the Chat parser does", () => {
    expect(estimatedFileTokens(pdf(30).toString('base64'))).toBe(30 * estimatedTokensPerPdfPage);
  });

  it('keeps the flat estimate for anything else: a linked PDF, another file type, a PDF hiding its pages, nothing', () => {
    expect(estimatedFileTokens({ kind: 'base64', mediaType: 'application/pdf', data: Buffer.alloc(100_000, 0x78).toString('base64') })).toBe(estimatedTokensPerImage);
    expect(estimatedFileTokens({ kind: 'url', url: 'https://example.com/a.pdf' }, 'application/pdf')).toBe(estimatedTokensPerImage);
    expect(estimatedFileTokens({ kind: 'base64', mediaType: 'text/plain', data: 'aGk=' })).toBe(estimatedTokensPerImage);
    expect(estimatedFileTokens(undefined)).toBe(estimatedTokensPerImage);
  });
});
