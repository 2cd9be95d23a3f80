import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox, users } from '../src/db/schema/index.ts';
import { hashToken } from '../src/lib/crypto.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { signUpUser } from './helpers/factories.ts';
import { firstLink, startSmtpServer } from './helpers/smtp.ts';

type Cell = { where: string; value: string };

/** Every value of every text-like column of every table in the public schema, labelled `table.column`. */
async function dumpTextColumns(testApp: TestApp): Promise<Cell[]> {
  const { pool } = testApp.database;
  const { rows: columns } = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const cells: Cell[] = [];
  for (const { table_name: table, column_name: column } of columns) {
    const { rows } = await pool.query<{ value: string | null }>(
      `SELECT ${pg.escapeIdentifier(column)}::text AS value FROM public.${pg.escapeIdentifier(table)}`,
    );
    for (const { value } of rows) if (value !== null) cells.push({ where: `${table}.${column}`, value });
  }
  return cells;
}

async function waitForSent(testApp: TestApp, to: string) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const rows = await testApp.database.db
      .select({ status: mailOutbox.status })
      .from(mailOutbox)
      .where(eq(mailOutbox.to, to));
    if (rows.length > 0 && rows.every((row) => row.status === 'sent')) return;
    await sleep(100);
  }
  throw new Error(`the mail to ${to} was not marked sent`);
}

describe('secrets at rest', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let testApp: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    testApp = await buildTestApp({ env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await testApp?.close();
    await smtp?.close();
  });

  it('stores no password, session token, API key or reset token in clear, anywhere', async () => {
    const { app } = testApp;
    const user = await signUpUser(app, { password: 'a clear password that must never be stored' });

    const signIn = await app.inject({
      method: 'POST',
      url: '/auth/sign-in',
      payload: { email: user.email, password: user.password },
    });
    expect(signIn.statusCode).toBe(200);
    const signInToken: string = signIn.json().data.session.sessionId;

    const keyResponse = await app.inject({
      method: 'POST',
      url: '/users/me/api-keys',
      headers: user.headers,
      payload: { name: 'ci' },
    });
    expect(keyResponse.statusCode).toBe(201);
    const apiKey: string = keyResponse.json().key;

    const reset = await app.inject({
      method: 'POST',
      url: '/auth/reset-password',
      payload: { email: user.email },
    });
    expect(reset.statusCode).toBe(200);
    const resetToken = new URL(firstLink(await smtp.waitForMail(user.email))).searchParams.get('token');
    expect(resetToken?.length).toBeGreaterThanOrEqual(43);
    await waitForSent(testApp, user.email);

    const cells = await dumpTextColumns(testApp);
    const found = (needle: string) =>
      cells.filter((cell) => cell.value.includes(needle)).map((cell) => cell.where);

    // The dump reaches the rows that hold these secrets: their hashes are there.
    expect(found(user.email)).toContain('users.email');
    expect(found(hashToken(user.token))).toEqual(['sessions.token_hash']);
    expect(found(hashToken(signInToken))).toEqual(['sessions.token_hash']);
    expect(found(hashToken(apiKey))).toEqual(['api_keys.key_hash']);
    expect(found(hashToken(resetToken as string))).toEqual(['password_reset_tokens.token_hash']);

    const secrets = {
      password: user.password,
      'sign-up session token': user.token,
      'sign-in session token': signInToken,
      'API key': apiKey,
      'API key beyond its shown prefix': apiKey.slice(12),
      'reset token': resetToken as string,
    };
    for (const [name, secret] of Object.entries(secrets)) expect(found(secret), name).toEqual([]);

    const [stored] = await testApp.database.db
      .select({ passwordHash: users.passwordHash })
      .from(users)
      .where(eq(users.id, user.id));
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
  });
});
