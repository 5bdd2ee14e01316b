/**
 * The PDF page count's edges, from the audit of object-stream inflation (pure-function probes; docs/
 * behaviour.md "Billing"): a page count is a reservation and, without upstream usage, a charge. Money: an
 * outline's `/Count` beside the page tree is no page count (a 3-page paper counted 120), a page rewritten
 * by incremental updates counts once (an Acrobat file counted 4×), hybrid files and sub-trees. CPU: what a
 * request may inflate is bounded in all (streams past the bound cost no more), and a stream is inflated
 * once however many markers name it. From the review of the session's diff: a PDF whose object streams
 * cannot be inflated (an encrypted one) hides neither the other PDFs' pages nor its own file's other streams.
 */
import { deflateSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { objectStreamObject, objectStreamPdf } from './pdf-builders.js';

/** Counts what inflateSync produced (or was allowed to produce before it threw past its bound). */
const inflated = { calls: 0, bytes: 0 };
vi.mock('node:zlib', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:zlib')>();
  return {
    ...original,
    inflateSync: (buffer: Buffer, options?: { maxOutputLength?: number }) => {
      inflated.calls += 1;
      try {
        const out = original.inflateSync(buffer, options);
        inflated.bytes += out.length;
        return out;
      } catch (error) {
        // It inflated up to the bound before refusing.
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') inflated.bytes += options?.maxOutputLength ?? 0;
        throw error;
      }
    },
  };
});

const { countPdfPages, estimatedFileTokens, estimatedTokensPerPdfPage, PdfScanBudget } = await import('../../src/relay/estimate-attachment-tokens.js');
const { collectChatPromptText } = await import('../../src/relay/openai/collect-prompt-text.js');
const { collectCanonicalPromptText } = await import('../../src/relay/text/collect-canonical-prompt-text.js');
void zlib;

const objectStream = (number: number, objects: [number, string][]) => objectStreamObject(number, objects);
const reset = () => {
  inflated.calls = 0;
  inflated.bytes = 0;
};

describe('money: pages counted', () => {
  it('a 3-page PDF whose outline root (/Count = visible bookmarks) sits next to the page tree in an object stream counts 3, not 120', () => {
    // pdfTeX/hyperref: catalog, page tree and outline dictionaries are packed together in one object stream.
    const objects: [number, string][] = [
      [1, '<</Type/Catalog/Pages 2 0 R/Outlines 6 0 R/PageMode/UseOutlines>>'],
      [2, '<</Type/Pages/Count 3/Kids[3 0 R 4 0 R 5 0 R]>>'],
      [3, '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>'],
      [4, '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>'],
      [5, '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>'],
      [6, '<</Type/Outlines/First 7 0 R/Last 126 0 R/Count 120>>'],
    ];
    const file = Buffer.from(`%PDF-1.5\n${objectStream(100, objects)}%%EOF\n`, 'latin1');
    const pages = countPdfPages(file);
    expect(pages).toBe(3);
  });

  it('the same in the clear (classic file, outline object right after the page tree) counts 3', () => {
    const file = Buffer.from(
      '%PDF-1.4\n1 0 obj\n<</Type/Catalog/Pages 2 0 R/Outlines 6 0 R>>\nendobj\n2 0 obj\n<</Type/Pages/Count 3/Kids[3 0 R 4 0 R 5 0 R]>>\nendobj\n' +
        '6 0 obj\n<</Type/Outlines/First 7 0 R/Last 126 0 R/Count 120>>\nendobj\n' +
        [3, 4, 5].map((n) => `${n} 0 obj\n<</Type/Page/Parent 2 0 R>>\nendobj\n`).join('') + '%%EOF\n',
      'latin1',
    );
    expect(countPdfPages(file)).toBe(3);
  });

  it('an Acrobat-saved file (keys sorted, /Type last in a long page dictionary) with 3 incremental updates of its 10 pages counts 10, not 40', () => {
    const longPage = (n: number, u: number) =>
      `${n} 0 obj\n<</Annots[${u + 200} 0 R]/Contents ${n + 50} 0 R/CropBox[0 0 612 792]/MediaBox[0 0 612 792]/Parent 2 0 R/Resources<</ExtGState<</GS0 90 0 R>>/Font<</T1_0 91 0 R/T1_1 92 0 R/T1_2 93 0 R>>/ProcSet[/PDF/Text]>>/Rotate 0/Type/Page>>\nendobj\n`;
    let text = `%PDF-1.6\n1 0 obj\n<</Pages 2 0 R/Type/Catalog>>\nendobj\n2 0 obj\n<</Count 10/Kids[${Array.from({ length: 10 }, (_, i) => `${i + 3} 0 R`).join(' ')}]/Type/Pages>>\nendobj\n`;
    for (let u = 0; u <= 3; u += 1) text += Array.from({ length: 10 }, (_, i) => longPage(i + 3, u)).join('') + 'trailer\n<</Size 300/Root 1 0 R>>\n%%EOF\n';
    const pages = countPdfPages(Buffer.from(text, 'latin1'));
    expect(pages).toBe(10);
  });

  it('hybrid-reference file: pages both in the clear and in an object stream (same numbers) count once', () => {
    const clear = [3, 4].map((n) => `${n} 0 obj\n<</Type/Page/Parent 2 0 R>>\nendobj\n`).join('');
    const file = `%PDF-1.5\n${clear}${objectStream(100, [[2, '<</Type/Pages/Count 2/Kids[3 0 R 4 0 R]>>'], [3, '<</Type/Page/Parent 2 0 R>>'], [4, '<</Type/Page/Parent 2 0 R>>']])}%%EOF\n`;
    expect(countPdfPages(Buffer.from(file, 'latin1'))).toBe(2);
  });

  it('the same object stream referenced by two /ObjStm markers counts its pages once', () => {
    const stream = objectStream(100, [[3, '<</Type/Page>>'], [4, '<</Type/Page>>']]).replace('<</Type/ObjStm', '<</Type/ObjStm/Alt/ObjStm');
    expect(countPdfPages(Buffer.from(`%PDF-1.5\n${stream}`, 'latin1'))).toBe(2);
  });

  it('a sub-tree /Pages node with a smaller /Count does not lower the count', () => {
    const file = `%PDF-1.5\n${objectStream(100, [[2, '<</Type/Pages/Count 7/Kids[8 0 R 9 0 R]>>'], [8, '<</Type/Pages/Count 4/Parent 2 0 R>>'], [9, '<</Type/Pages/Count 3/Parent 2 0 R>>']])}%%EOF\n`;
    expect(countPdfPages(Buffer.from(file, 'latin1'))).toBe(7);
  });
});

describe('CPU: the inflation bound', () => {
  it("a PDF of streams that each inflate past the bound inflates at most the request's 2 MiB in all", () => {
    // 4 MiB + 1 of zeros deflates to ~4 KB; each throws past the budget, and the budget is never charged.
    const bomb = deflateSync(Buffer.alloc(4 * 1024 * 1024 + 1)).toString('latin1');
    const one = (n: number) => `${n} 0 obj\n<</Type/ObjStm/N 1/First 4/Length ${bomb.length}/Filter/FlateDecode>>\nstream\n${bomb}\nendstream\nendobj\n`;
    const file = Buffer.from(`%PDF-1.5\n${Array.from({ length: 256 }, (_, i) => one(i + 1)).join('')}`, 'latin1');
    reset();
    countPdfPages(file);
    expect(inflated.bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
  });

  it('one small stream named by many /ObjStm markers is inflated once', () => {
    const bomb = deflateSync(Buffer.alloc(4 * 1024 * 1024 + 1)).toString('latin1');
    // ~140 markers fit in the 1 KiB before `stream`: two such streams give the 256 inflations.
    const markers = '/Type/ObjStm'.repeat(80);
    const one = (n: number) => `${n} 0 obj\n<<${markers}/N 1/First 4/Filter/FlateDecode>>\nstream\n${bomb}\nendstream\nendobj\n`;
    const file = Buffer.from(`%PDF-1.5\n${one(1)}${one(2)}${one(3)}${one(4)}`, 'latin1');
    reset();
    countPdfPages(file);
    expect(inflated.calls).toBeLessThanOrEqual(4);
  });
});

describe('CPU: one budget per request', () => {
  it('many PDFs in one request inflate at most the request budget in all (each past it keeps the flat estimate)', () => {
    const stream = objectStream(100, Array.from({ length: 20 }, (_, i): [number, string] => [3 + i, `<</Type/Page/Parent 2 0 R/Pad(${'x'.repeat(40_000)})>>`]));
    const data = Buffer.from(`%PDF-1.5\n${stream}%%EOF\n`, 'latin1').toString('base64');
    const budget = new PdfScanBudget();
    reset();
    const estimates = Array.from({ length: 20 }, () => estimatedFileTokens({ kind: 'base64', mediaType: 'application/pdf', data }, undefined, budget));
    expect(inflated.bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    // The first PDFs are counted by their 20 pages; once the budget is spent the rest keep the flat 1,000.
    expect(estimates.slice(0, 2)).toEqual([60_000, 60_000]);
    expect(estimates.at(-1)).toBe(1_000);
  });
});

/** objectStreamPdf(pages) as an encrypting writer saves it: the object stream's bytes encrypted (random here), /Encrypt in the trailer. */
function encryptedObjectStreamPdf(pages: number): Buffer {
  const plain = objectStreamPdf(pages).toString('latin1');
  const start = plain.indexOf('stream\n') + 'stream\n'.length;
  const end = plain.indexOf('\nendstream', start);
  return Buffer.concat([
    Buffer.from(plain.slice(0, start), 'latin1'),
    randomBytes(end - start),
    Buffer.from(plain.slice(end).replace('/Root 1 0 R', '/Root 1 0 R/Encrypt 1999 0 R'), 'latin1'),
  ]);
}

const chatFile = (pdf: Buffer) => ({ type: 'file', file: { filename: 'x.pdf', file_data: `data:application/pdf;base64,${pdf.toString('base64')}` } });

describe('money: one PDF that cannot be inflated does not hide the pages of the others', () => {
  it('chat request: an encrypted 2-page PDF, then a 40-page pdfTeX paper — the paper is reserved 40 pages', () => {
    const paper = objectStreamPdf(40);
    // Alone the paper counts 40 pages.
    expect(countPdfPages(paper)).toBe(40);
    const prompt = collectChatPromptText({ messages: [{ role: 'user', content: [chatFile(encryptedObjectStreamPdf(2)), chatFile(paper), { type: 'text', text: 'compare' }] }] });
    // Now: 1000 + 1000 (+4): the encrypted file's failed inflation set the request's budget to 0.
    expect(prompt.extraTokens).toBeGreaterThanOrEqual(40 * estimatedTokensPerPdfPage);
  });

  it('canonical request (Claude Code: an encrypted PDF read earlier in the conversation, a paper read now) — the same', () => {
    const file = (pdf: Buffer) => ({ type: 'file' as const, source: { kind: 'base64' as const, mediaType: 'application/pdf', data: pdf.toString('base64') }, mediaType: 'application/pdf' });
    const prompt = collectCanonicalPromptText({
      model: 'm',
      stream: false,
      system: [],
      tools: [],
      messages: [
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', content: [file(encryptedObjectStreamPdf(2))] }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'b', content: [file(objectStreamPdf(40))] }] },
      ],
    } as never);
    expect(prompt.extraTokens).toBeGreaterThanOrEqual(40 * estimatedTokensPerPdfPage);
  });

  it('within one file too: a first object stream that fails does not hide a second one (the doc: "corrupt ... stays out of sight", that stream)', () => {
    const good = objectStreamPdf(12).toString('latin1');
    const bad = encryptedObjectStreamPdf(1).toString('latin1');
    // The bad file's object stream (renumbered 999) first, then the good file's body.
    const badStream = bad.slice(bad.indexOf('1000 0 obj'), bad.indexOf('endobj', bad.indexOf('1000 0 obj')) + 7).replace('1000 0 obj', '999 0 obj');
    const pdf = Buffer.from(good.replace('%PDF-1.5\n', `%PDF-1.5\n${badStream}`), 'latin1');
    expect(countPdfPages(pdf, new PdfScanBudget())).toBe(12);
  });
});
