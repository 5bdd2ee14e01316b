import { describe, expect, it } from 'vitest';
import { isJsonContentType } from './refuse-non-json-session-write.js';

describe('isJsonContentType', () => {
  it('accepts application/json with any parameters and any case', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('Application/JSON; charset=utf-8')).toBe(true);
  });

  it('refuses what an HTML form can send, and no content type at all', () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json-patch', undefined]) {
      expect(isJsonContentType(type), String(type)).toBe(false);
    }
  });
});
