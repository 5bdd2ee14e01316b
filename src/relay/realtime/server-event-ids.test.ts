import { describe, expect, it } from 'vitest';
import { serverEventIds } from './server-event-ids.js';

describe('serverEventIds', () => {
  it('gives each event a session makes up an id of its own, naming the session', () => {
    const next = serverEventIds('0123abcd');
    const ids = [next(), next(), next()];
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id.startsWith('evt_0123abcd_')).toBe(true);
  });

  it('keeps the ids of two sessions apart', () => {
    expect(serverEventIds('aaaa')()).not.toBe(serverEventIds('bbbb')());
  });
});
