import { describe, expect, it } from 'vitest';
import { placeholderFilename } from './placeholder-filename.js';

describe('placeholderFilename', () => {
  it('names a file by its media type, and a file of unknown type plainly', () => {
    expect(placeholderFilename('application/pdf')).toBe('document.pdf');
    expect(placeholderFilename('Application/PDF; name=x')).toBe('document.pdf');
    expect(placeholderFilename('text/plain')).toBe('document.txt');
    expect(placeholderFilename('application/octet-stream')).toBe('document');
    expect(placeholderFilename(undefined)).toBe('document');
  });
});
