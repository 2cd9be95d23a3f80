import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { signUpUser, withApiKey } from '../../../test/helpers/factories.ts';
import { firstLink, startSmtpServer } from '../../../test/helpers/smtp.ts';
import { mailOutbox, passwordResetTokens, users } from '../../db/schema/index.ts';
import { PASSWORD_RESET_MESSAGE, RESET_REQUESTED_MESSAGE } from './password-reset.ts';

const NEW_PASSWORD = 'a brand new passphrase';
const MINUTE = 60_000;

// The confirm route is limited per client IP (it names no email): each test uses its own address.
let nextAddress = 1;
const freshIp = () => `203.0.113.${nextAddress++}`;

describe('password reset', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let testApp: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    testApp = await buildTestApp({ env: { SMTP_URL: smtp.url, APP_URL: 'https://hub.example.com' } });
  });
  afterAll(async () => {
    await testApp?.close();
    await smtp?.close();
  });
  afterEach(() => testApp.clock.reset());

  const requestReset = (email: string, remoteAddress = '198.51.100.1') =>
    testApp.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email }, remoteAddress });

  const confirm = (payload: Record<string, unknown>, remoteAddress = freshIp()) =>
    testApp.app.inject({ method: 'POST', url: '/auth/reset-password/confirm', payload, remoteAddress });

  const signIn = (email: string, password: string) =>
    testApp.app.inject({ method: 'POST', url: '/auth/sign-in', payload: { email, password } });

  const tokenOf = (text: string) => {
    const token = /token=([\w-]+)/.exec(text)?.[1];
    if (!token) throw new Error(`no token in mail: ${text}`);
    return token;
  };

  /** The tokens of the first `count` mails delivered to `email` (the outbox drops bodies once sent). */
  async function mailedTokens(email: string, count = 1) {
    const deadline = Date.now() + 15_000;
    let mails = smtp.received.filter((mail) => mail.to.includes(email));
    while (mails.length < count && Date.now() < deadline) {
      await sleep(50);
      mails = smtp.received.filter((mail) => mail.to.includes(email));
    }
    if (mails.length < count) throw new Error(`${mails.length} of ${count} mails to ${email} arrived`);
    return mails.map((mail) => tokenOf(mail.text));
  }

  const invalidToken = { success: false, error: 'Invalid token', code: 'INVALID_TOKEN' };

  it('mails a link, sets the new password with its token and revokes every session and API key', async () => {
    const user = await signUpUser(testApp.app);
    const otherSession = (await signIn(user.email, user.password)).json().data.session.sessionId;
    const { headers: keyHeaders } = await withApiKey(testApp, user);
    const withKey = () => testApp.app.inject({ method: 'GET', url: '/users/me', headers: keyHeaders });
    expect((await withKey()).statusCode).toBe(200);

    const requested = await requestReset(user.email);
    expect(requested.statusCode).toBe(200);
    expect(requested.json()).toEqual({ success: true, data: { message: RESET_REQUESTED_MESSAGE } });

    const mail = await smtp.waitForMail(user.email);
    expect(mail.subject).toBe('Reset your Knowledge Hub password');
    const link = new URL(firstLink(mail));
    expect(`${link.origin}${link.pathname}`).toBe('https://hub.example.com/reset-password');
    const token = link.searchParams.get('token') as string;
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(mail.text).toContain(`reset token: ${token}`);

    const confirmed = await confirm({ token, password: NEW_PASSWORD });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toEqual({ success: true, data: { message: PASSWORD_RESET_MESSAGE } });

    for (const sessionToken of [user.token, otherSession]) {
      const session = await testApp.app.inject({
        method: 'GET',
        url: '/auth/session',
        headers: { authorization: `Bearer ${sessionToken}` },
      });
      expect(session.statusCode).toBe(401);
      expect(session.json()).toMatchObject({ success: false, error: 'Invalid session' });
    }
    // A key minted by whoever held the account before the reset opens nothing after it.
    expect((await withKey()).statusCode).toBe(401);

    const oldPassword = await signIn(user.email, user.password);
    expect(oldPassword.statusCode).toBe(401);
    expect(oldPassword.json()).toEqual({
      success: false,
      error: 'Invalid credentials',
      code: 'INVALID_CREDENTIALS',
    });
    const newPassword = await signIn(user.email, NEW_PASSWORD);
    expect(newPassword.statusCode).toBe(200);
    expect(newPassword.json().data.user.id).toBe(user.id);

    const [row] = await testApp.database.db
      .select({ passwordHash: users.passwordHash, emailVerifiedAt: users.emailVerifiedAt })
      .from(users)
      .where(eq(users.id, user.id));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row?.emailVerifiedAt).toBeInstanceOf(Date);
  });

  it('answers an unknown email exactly like a known one, and mails nothing', async () => {
    const known = await signUpUser(testApp.app);
    const unknownEmail = 'nobody-here@example.com';
    const forKnown = await requestReset(known.email);
    const forUnknown = await requestReset(unknownEmail);
    expect(forUnknown.statusCode).toBe(forKnown.statusCode);
    expect(forUnknown.body).toBe(forKnown.body);
    expect(forUnknown.headers['content-type']).toBe(forKnown.headers['content-type']);

    // The known address's mail arrives; by then the other one would have been delivered too.
    await smtp.waitForMail(known.email);
    expect(smtp.received.filter((mail) => mail.to.includes(unknownEmail))).toEqual([]);
    const outbox = await testApp.database.db
      .select({ id: mailOutbox.id })
      .from(mailOutbox)
      .where(eq(mailOutbox.to, unknownEmail));
    expect(outbox).toEqual([]);
  });

  it('normalises the email as sign-up does', async () => {
    const user = await signUpUser(testApp.app);
    const response = await requestReset(`  ${user.email.toUpperCase()} `);
    expect(response.statusCode).toBe(200);
    expect(await mailedTokens(user.email)).toHaveLength(1);
  });

  it('stores only the SHA-256 of the token, with a one-hour expiry', async () => {
    const user = await signUpUser(testApp.app);
    const before = Date.now();
    await requestReset(user.email);
    const token = tokenOf((await smtp.waitForMail(user.email)).text);

    const rows = await testApp.database.db
      .select()
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.userId, user.id));
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.tokenHash).not.toBe(token);
    expect(row?.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(row?.usedAt).toBeNull();
    const expiresInMs = (row?.expiresAt.getTime() ?? 0) - before;
    expect(expiresInMs).toBeGreaterThan(59 * MINUTE);
    expect(expiresInMs).toBeLessThanOrEqual(61 * MINUTE);
  });

  it('refuses a token that was already used', async () => {
    const user = await signUpUser(testApp.app);
    await requestReset(user.email);
    const [token] = await mailedTokens(user.email);

    expect((await confirm({ token, password: NEW_PASSWORD })).statusCode).toBe(200);
    const reused = await confirm({ token, password: 'yet another password' });
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toEqual(invalidToken);
    expect((await signIn(user.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('refuses an expired token and leaves the password unchanged', async () => {
    const user = await signUpUser(testApp.app);
    await requestReset(user.email);
    const [token] = await mailedTokens(user.email);

    testApp.clock.advance(61 * MINUTE);
    const expired = await confirm({ token, password: NEW_PASSWORD });
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual(invalidToken);
    testApp.clock.reset();

    expect((await signIn(user.email, user.password)).statusCode).toBe(200);
    const [row] = await testApp.database.db
      .select({ usedAt: passwordResetTokens.usedAt })
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.userId, user.id));
    expect(row?.usedAt).toBeNull();
  });

  it('accepts a token just before it expires', async () => {
    const user = await signUpUser(testApp.app);
    await requestReset(user.email);
    const [token] = await mailedTokens(user.email);
    testApp.clock.advance(59 * MINUTE);
    expect((await confirm({ token, password: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('refuses a token that was never issued', async () => {
    const response = await confirm({ token: 'not-a-real-token', password: NEW_PASSWORD });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(invalidToken);
  });

  it('spends the other outstanding tokens of the user along with the one used', async () => {
    const user = await signUpUser(testApp.app);
    await requestReset(user.email);
    await requestReset(user.email);
    const [used, other] = await mailedTokens(user.email, 2);
    expect(used).not.toBe(other);

    expect((await confirm({ token: used, password: NEW_PASSWORD })).statusCode).toBe(200);
    const outstanding = await confirm({ token: other, password: 'an attacker password' });
    expect(outstanding.statusCode).toBe(400);
    expect(outstanding.json()).toEqual(invalidToken);
    expect((await signIn(user.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('lets an OAuth-only account (no password yet) set one', async () => {
    const email = 'oauth-only@example.com';
    await testApp.database.db.insert(users).values({ email, name: 'OAuth Only' });
    await requestReset(email);
    const [token] = await mailedTokens(email);
    expect((await confirm({ token, password: NEW_PASSWORD })).statusCode).toBe(200);
    expect((await signIn(email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('validates the request body and lists every failing field', async () => {
    const badEmail = await requestReset('not-an-email');
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.json()).toEqual({
      success: false,
      error: 'Invalid request',
      code: 'VALIDATION_ERROR',
      details: [{ path: 'body.email', message: 'must be a valid email address' }],
    });

    const missing = await testApp.app.inject({ method: 'POST', url: '/auth/reset-password', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details).toEqual([{ path: 'body.email', message: expect.any(String) }]);

    const badConfirm = await confirm({ token: '', password: 'short' });
    expect(badConfirm.statusCode).toBe(400);
    expect(badConfirm.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(badConfirm.json().details).toEqual([
      { path: 'body.token', message: 'must not be empty' },
      { path: 'body.password', message: 'must be at least 8 characters' },
    ]);

    const tooLong = await confirm({ token: 'x', password: 'p'.repeat(129) });
    expect(tooLong.json().details).toEqual([
      { path: 'body.password', message: 'must be at most 128 characters' },
    ]);
  });

  it('keeps the password when the new one is invalid, and the token stays usable', async () => {
    const user = await signUpUser(testApp.app);
    await requestReset(user.email);
    const [token] = await mailedTokens(user.email);
    expect((await confirm({ token, password: 'short' })).statusCode).toBe(400);
    expect((await signIn(user.email, user.password)).statusCode).toBe(200);
    expect((await confirm({ token, password: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('allows 10 requests per email and client IP in 15 minutes, then answers 429', async () => {
    const email = 'rate-limited@example.com';
    const ip = '192.0.2.77';
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await requestReset(email, ip)).statusCode);
    expect(statuses).toEqual(Array(10).fill(200));

    const limited = await requestReset(email, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({
      success: false,
      error: expect.stringContaining('Rate limit exceeded'),
      code: 'RATE_LIMITED',
    });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);

    // Another email from the same IP, and the same email from another IP, have their own budgets.
    expect((await requestReset('someone-else@example.com', ip)).statusCode).toBe(200);
    expect((await requestReset(email, '192.0.2.78')).statusCode).toBe(200);
  });

  it('limits confirmation attempts per client IP', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await confirm({ token: `guess-${i}`, password: NEW_PASSWORD }, ip)).statusCode);
    }
    expect(statuses).toEqual([...Array(10).fill(400), 429]);
  });
});
