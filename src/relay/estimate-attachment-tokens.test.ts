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

  it("reads the page tree's /Count when the page objects are compressed out of sight, else a page per 50 KB", () => {
    expect(countPdfPages(Buffer.from('%PDF-1.7\n2 0 obj\n<< /Type /Pages /Count 12 /Kids [3 0 R] >>\nendobj\n<< /Count 7 /Type /Pages >>', 'latin1'))).toBe(12);
    expect(countPdfPages(Buffer.alloc(120_000, 0x78))).toBe(3);
    expect(countPdfPages(Buffer.alloc(10, 0x78))).toBe(1);
  });
});

describe('estimatedFileTokens', () => {
  it('counts an inline PDF by its pages, base64 or as a data URL', () => {
    const data = pdf(30).toString('base64');
    expect(estimatedFileTokens({ kind: 'base64', mediaType: 'application/pdf', data })).toBe(30 * estimatedTokensPerPdfPage);
    expect(estimatedFileTokens(`data:application/pdf;base64,${data}`)).toBe(30 * estimatedTokensPerPdfPage);
  });

  it('keeps the flat estimate for anything else: a linked PDF, another file type, nothing', () => {
    expect(estimatedFileTokens({ kind: 'url', url: 'https://example.com/a.pdf' }, 'application/pdf')).toBe(estimatedTokensPerImage);
    expect(estimatedFileTokens({ kind: 'base64', mediaType: 'text/plain', data: 'aGk=' })).toBe(estimatedTokensPerImage);
    expect(estimatedFileTokens(undefined)).toBe(estimatedTokensPerImage);
  });
});
