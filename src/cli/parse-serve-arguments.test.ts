import { describe, expect, it } from 'vitest';
import { SettingError } from '../config/setting-error.js';
import { parseServeArguments } from './parse-serve-arguments.js';

describe('parseServeArguments', () => {
  it('reads --workers N and --workers=N alike', () => {
    expect(parseServeArguments(['--workers', '2'], {})).toEqual({ workers: 2 });
    expect(parseServeArguments(['--workers=3'], {})).toEqual({ workers: 3 });
  });

  it('serves from one process when neither the flag nor RELAY_WORKERS is given', () => {
    expect(parseServeArguments([], {})).toEqual({ workers: 1 });
    expect(parseServeArguments([], { RELAY_WORKERS: ' ' })).toEqual({ workers: 1 });
  });

  it('takes RELAY_WORKERS when the flag is absent, and the flag over it', () => {
    expect(parseServeArguments([], { RELAY_WORKERS: '4' })).toEqual({ workers: 4 });
    expect(parseServeArguments(['--workers', '2'], { RELAY_WORKERS: '4' })).toEqual({ workers: 2 });
  });

  it.each([
    [['--workers'], '--workers'],
    [['--workers='], '--workers'],
    [['--workers', '0'], 'from 1 to 64'],
    [['--workers', '65'], 'from 1 to 64'],
    [['--workers', '0x2'], '0x2'],
    [['--workers', '2.0'], '2.0'],
    [['--wrokers', '2'], '--wrokers'],
    [['extra'], 'extra'],
  ])('refuses %j with a SettingError naming %s', (args, mention) => {
    expect(() => parseServeArguments(args, {})).toThrow(SettingError);
    expect(() => parseServeArguments(args, {})).toThrow(mention);
  });

  it.each(['0x2', '1e1', '-1', '0', '65'])('refuses RELAY_WORKERS=%s', (raw) => {
    expect(() => parseServeArguments([], { RELAY_WORKERS: raw })).toThrow(/RELAY_WORKERS must be an integer from 1 to 64/);
  });
});
