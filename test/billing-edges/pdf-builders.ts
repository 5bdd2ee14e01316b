import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';

/**
 * One object stream (ISO 32000-1 §7.5.7) as a PDF object: `objects` (number → dictionary), Flate-compressed,
 * its dictionary laid out as writers do: `indirectLength` points /Length at the next object (pdfTeX, which
 * then follows), else it is given in place with the keys in another order (qpdf, Word).
 */
export function objectStreamObject(number: number, objects: [number, string][], indirectLength = false): string {
  let header = '';
  let body = '';
  for (const [objectNumber, text] of objects) {
    header += `${objectNumber} ${body.length} `;
    body += `${text}\n`;
  }
  const data = deflateSync(Buffer.from(header + body, 'latin1')).toString('latin1');
  const dictionary = indirectLength
    ? `<</Type/ObjStm/N ${objects.length}/First ${header.length}/Length ${number + 1} 0 R/Filter/FlateDecode>>`
    : `<< /Type /ObjStm /Length ${data.length} /Filter /FlateDecode /N ${objects.length} /First ${header.length} >>`;
  return `${number} 0 obj\n${dictionary}\nstream\r\n${data}\r\nendstream\nendobj\n${indirectLength ? `${number + 1} 0 obj\n${data.length}\nendobj\n` : ''}`;
}

/** A minimal classic PDF of `pages` pages: page objects and the page tree's /Count, all in sight. */
export function classicPdf(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, index) => `${index + 3} 0 R`).join(' ');
  const objects = Array.from({ length: pages }, (_, index) => `${index + 3} 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n`).join('');
  return Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj\n${objects}%%EOF\n`, 'latin1');
}

/**
 * A PDF 1.5 whose catalog, page tree and page objects live in a compressed object stream (/Type /ObjStm),
 * as pdfTeX (TeX Live's default \pdfobjcompresslevel=2), Word, Acrobat "reduce size" and qpdf write them;
 * `imageBytes` > 0 adds one incompressible image (a scan) per page, outside the object stream.
 */
export function objectStreamPdf(pages: number, imageBytes = 0): Buffer {
  const firstPage = 3;
  const firstImage = firstPage + pages;
  const objects: [number, string][] = [
    [1, '<</Type/Catalog/Pages 2 0 R>>'],
    [2, `<</Type/Pages/Count ${pages}/Kids[${Array.from({ length: pages }, (_, i) => `${firstPage + i} 0 R`).join(' ')}]>>`],
    ...Array.from({ length: pages }, (_, i): [number, string] => [
      firstPage + i,
      `<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]${imageBytes > 0 ? `/Resources<</XObject<</Im0 ${firstImage + i} 0 R>>>>` : ''}>>`,
    ]),
  ];
  let header = '';
  let body = '';
  for (const [number, text] of objects) {
    header += `${number} ${body.length} `;
    body += `${text}\n`;
  }
  const stream = deflateSync(Buffer.from(header + body, 'latin1'));
  const parts: Buffer[] = [Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const objStm = 1000;
  parts.push(Buffer.from(`${objStm} 0 obj\n<</Type/ObjStm/N ${objects.length}/First ${header.length}/Length ${stream.length}/Filter/FlateDecode>>\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream\nendobj\n', 'latin1'));
  for (let i = 0; i < (imageBytes > 0 ? pages : 0); i += 1) {
    const image = randomBytes(imageBytes);
    parts.push(Buffer.from(`${firstImage + i} 0 obj\n<</Type/XObject/Subtype/Image/Width 2480/Height 3508/ColorSpace/DeviceRGB/BitsPerComponent 8/Filter/DCTDecode/Length ${image.length}>>\nstream\n`, 'latin1'), image, Buffer.from('\nendstream\nendobj\n', 'latin1'));
  }
  const xrefStream = deflateSync(Buffer.alloc(16));
  parts.push(Buffer.from(`2000 0 obj\n<</Type/XRef/Size 2001/Root 1 0 R/W[1 4 2]/Length ${xrefStream.length}/Filter/FlateDecode>>\nstream\n`, 'latin1'), xrefStream, Buffer.from('\nendstream\nendobj\nstartxref\n0\n%%EOF\n', 'latin1'));
  return Buffer.concat(parts);
}

/**
 * A classic PDF of `pages` page objects, then `updates` incremental updates (ISO 32000-1 §7.5.6: what a
 * form fill, an annotation or a signature saved by Acrobat appends), each re-writing every page object
 * (same object number, new annotations) — the file still has `pages` pages.
 */
export function incrementallyUpdatedPdf(pages: number, updates: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const page = (i: number, annots: string) => `${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]${annots} >>\nendobj\n`;
  let text = `%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj\n`;
  text += Array.from({ length: pages }, (_, i) => page(i, '')).join('');
  text += 'xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 100 /Root 1 0 R >>\nstartxref\n0\n%%EOF\n';
  for (let u = 1; u <= updates; u += 1) {
    text += Array.from({ length: pages }, (_, i) => page(i, ` /Annots [${100 + u} 0 R]`)).join('');
    text += `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 200 /Root 1 0 R /Prev 0 >>\nstartxref\n0\n%%EOF\n`;
  }
  return Buffer.from(text, 'latin1');
}
