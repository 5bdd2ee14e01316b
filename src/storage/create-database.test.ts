import { describe, expect, it } from 'vitest';
import { createDatabase, dialectOf } from './create-database.js';

describe('dialectOf', () => {
  it.each([
    ['sqlite:./data/relay.db', 'sqlite'],
    ['sqlite::memory:', 'sqlite'],
    [':memory:', 'sqlite'],
    ['postgres://relay:secret@db:5432/relay', 'postgres'],
    ['postgresql://db/relay', 'postgres'],
    ['mysql://root@db:3306/relay', 'mysql'],
    ['mariadb://root@db/relay', 'mysql'],
  ])('reads %s as %s', (url, dialect) => {
    expect(dialectOf(url)).toBe(dialect);
  });

  it('refuses an unknown scheme without printing the password', () => {
    expect(() => dialectOf('mongodb://relay:s3cret@db/relay')).toThrow(/DATABASE_URL/);
    expect(() => dialectOf('mongodb://relay:s3cret@db/relay')).not.toThrow(/s3cret/);
  });
});

describe('createDatabase', () => {
  it('describes a server database without its password', async () => {
    const handle = await createDatabase('postgres://relay:s3cret@127.0.0.1:1/relay');
    expect(handle.dialect).toBe('postgres');
    expect(handle.description).not.toContain('s3cret');
    expect(handle.description).toContain('relay:***@127.0.0.1:1/relay');
    await handle.db.destroy();
  });

  it('opens an in-memory SQLite database', async () => {
    const handle = await createDatabase('sqlite::memory:');
    expect(handle.dialect).toBe('sqlite');
    expect((await handle.db.introspection.getTables()).length).toBe(0);
    await handle.db.destroy();
  });
});
