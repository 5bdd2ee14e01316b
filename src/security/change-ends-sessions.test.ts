import { describe, expect, it } from 'vitest';
import { changeEndsSessions } from './change-ends-sessions.js';

const admin = { role: 'admin' as const, enabled: true };

describe('changeEndsSessions', () => {
  it('ends the sessions on a new password, a new role or a disable', () => {
    expect(changeEndsSessions(admin, { passwordHash: 'scrypt:x' })).toBe(true);
    expect(changeEndsSessions(admin, { role: 'user' })).toBe(true);
    expect(changeEndsSessions(admin, { enabled: false })).toBe(true);
  });

  it('keeps them when nothing of that changes', () => {
    expect(changeEndsSessions(admin, {})).toBe(false);
    expect(changeEndsSessions(admin, { role: 'admin', enabled: true })).toBe(false);
    expect(changeEndsSessions({ role: 'user', enabled: false }, { enabled: false })).toBe(false);
  });
});
