import { describe, expect, it } from 'vitest';
import { parseDataUrl } from './parse-data-url.js';

describe('parseDataUrl', () => {
  it('splits a base64 data URL into its media type and data', () => {
    expect(parseDataUrl('data:image/png;base64,iVBORw0KGgo=')).toEqual({ mediaType: 'image/png', data: 'iVBORw0KGgo=' });
  });

  it('drops media type parameters before ;base64', () => {
    expect(parseDataUrl('data:application/pdf;name=note.pdf;base64,JVBERi0=')).toEqual({ mediaType: 'application/pdf', data: 'JVBERi0=' });
  });

  it('defaults an empty media type to application/octet-stream', () => {
    expect(parseDataUrl('data:;base64,AAAA')).toEqual({ mediaType: 'application/octet-stream', data: 'AAAA' });
  });

  it('reads the scheme and the base64 marker case-insensitively (RFC 2397)', () => {
    expect(parseDataUrl('DATA:image/jpeg;BASE64,/9j/')).toEqual({ mediaType: 'image/jpeg', data: '/9j/' });
  });

  it('returns undefined for a URL that is not a base64 data URL', () => {
    expect(parseDataUrl('https://example.com/cat.png')).toBeUndefined();
    expect(parseDataUrl('data:text/plain,hello')).toBeUndefined();
    expect(parseDataUrl('data:image/png;base64')).toBeUndefined();
  });
});
