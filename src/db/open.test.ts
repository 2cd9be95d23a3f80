import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { adminQuery, createTestDatabase, withDatabase } from '../../test/helpers/database.ts';
import { connectDatabase } from './client.ts';
import { textSearchWarning } from './open.ts';

describe('textSearchWarning', () => {
  const adminUrl = inject('adminDatabaseUrl');
  const underC = `kh_ctype_c_${randomBytes(6).toString('hex')}`;
  afterAll(() => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${underC} WITH (FORCE)`));

  it('warns when the database splits words by the C locale, and not when it reads UTF-8', async () => {
    await adminQuery(adminUrl, `CREATE DATABASE ${underC} TEMPLATE template0 LC_CTYPE 'C' LC_COLLATE 'C'`);
    const old = connectDatabase(withDatabase(adminUrl, underC), { max: 1 });
    const current = await createTestDatabase();
    const fresh = connectDatabase(current.url, { max: 1 });
    try {
      // What the warning is about: under C, the curly apostrophe and quotes stay in the words.
      const words = "select to_tsvector('english', 'Northwind’s “plan”')::text as words";
      expect((await old.pool.query(words)).rows[0].words).not.toBe("'northwind':1 'plan':3");
      expect(await textSearchWarning(old)).toMatch(/^the database's LC_CTYPE is C: search and answers treat/);
      // The suite's database is made as the service makes its own (embedded.ts), or by the server given.
      expect((await fresh.pool.query(words)).rows[0].words).toBe("'northwind':1 'plan':3");
      expect(await textSearchWarning(fresh)).toBeNull();
    } finally {
      await old.close();
      await fresh.close();
      await current.drop();
    }
  });
});
