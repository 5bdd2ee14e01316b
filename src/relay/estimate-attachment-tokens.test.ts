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
