import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { cookieHeader, cookiesOf, signUpUser } from '../../../test/helpers/factories.ts';
import { apiKeys, memberships, organizations, sessions, users } from '../../db/schema/index.ts';
import { requireAuth } from '../../http/auth.ts';

const DAY = 24 * 3600 * 1000;
const SESSION_TTL_MS = 7 * DAY;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PASSWORD = 'correct horse battery staple';
const SESSION_COOKIE = 'svc-auth.session_token';
const CSRF_COOKIE = 'svc-auth.csrf_token';

const uniqueEmail = (label = 'user') => `${label}-${randomBytes(5).toString('hex')}@example.com`;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const authError = (error: string, code: string) => ({ success: false, error, code });

describe('core authentication', () => {
  const ctx = useTestApp();
  afterEach(() => ctx().clock.reset());

  // A protected route that only this file has, to observe what the authentication plugin resolved.
  beforeAll(() => {
    ctx().app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/test/whoami',
      handler: async (request) => {
        const auth = requireAuth(request);
        return { via: auth.via, userId: auth.user.id, apiKeyId: auth.apiKeyId };
      },
    });
  });

  const post = (url: string, payload?: Record<string, unknown>, headers: Record<string, string> = {}) =>
    ctx().app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
  const signUp = (payload: Record<string, unknown>, headers?: Record<string, string>) =>
    post('/auth/sign-up', payload, headers);
  const signIn = (payload: Record<string, unknown>, headers?: Record<string, string>) =>
    post('/auth/sign-in', payload, headers);
  const signOut = (headers: Record<string, string>) => post('/auth/sign-out', undefined, headers);
  const getSession = (headers: Record<string, string>) =>
    ctx().app.inject({ method: 'GET', url: '/auth/session', headers });
  const whoami = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', headers: Record<string, string>) =>
    ctx().app.inject({ method, url: '/test/whoami', headers });

  /** A user signed in by cookie: the Cookie header to send and the CSRF token to echo. */
  async function cookieSession() {
    const user = await signUpUser(ctx().app);
    const response = await signIn({ email: user.email, password: user.password });
    const cookies = cookiesOf(response);
    return { user, cookies, cookie: cookieHeader(cookies), csrf: cookies[CSRF_COOKIE] as string };
  }

  const expiresInMs = (response: LightMyRequestResponse) =>
    new Date(response.json().data.session.expiresAt).getTime() - ctx().clock.now().getTime();
  const detailPaths = (response: LightMyRequestResponse) =>
    response
      .json()
      .details.map((detail: { path: string }) => detail.path)
      .sort();

  describe('POST /auth/sign-up', () => {
    it('creates the account and a session, answering 201 in the envelope', async () => {
      const email = uniqueEmail('ada');
      const response = await signUp({
        email: `  ${email.toUpperCase()}  `,
        password: PASSWORD,
        name: ' Ada ',
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toEqual({
        success: true,
        data: {
          user: {
            id: expect.stringMatching(UUID),
            email,
            name: 'Ada',
            createdAt: expect.stringMatching(ISO),
            avatarUrl: null,
            defaultOrganizationId: expect.stringMatching(UUID),
          },
          session: {
            sessionId: expect.stringMatching(/^[\w-]{43,}$/),
            expiresAt: expect.stringMatching(ISO),
          },
        },
      });
      expect(Math.abs(expiresInMs(response) - SESSION_TTL_MS)).toBeLessThan(5000);
      const [row] = await ctx().database.db.select().from(users).where(eq(users.id, body.data.user.id));
      expect(row?.email).toBe(email);
      expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    });

    it('sets the session cookie (HttpOnly) and the CSRF cookie (readable by scripts)', async () => {
      const response = await signUp({ email: uniqueEmail(), password: PASSWORD, name: 'Cookie' });
      const byName = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie]));
      const attributes = { path: '/', sameSite: 'Lax', maxAge: 604800 };
      expect(byName[SESSION_COOKIE]).toEqual({
        name: SESSION_COOKIE,
        value: response.json().data.session.sessionId,
        httpOnly: true,
        ...attributes,
      });
      expect(byName[CSRF_COOKIE]).toEqual({
        name: CSRF_COOKIE,
        value: expect.stringMatching(/^[\w-]{43}$/),
        ...attributes,
      });
      expect(response.cookies).toHaveLength(2);
    });

    it("creates the user's personal organization, owned by them", async () => {
      const response = await signUp({ email: uniqueEmail(), password: PASSWORD, name: 'Grace Hopper' });
      const { user, session } = response.json().data;
      const rows = await ctx()
        .database.db.select({ id: organizations.id, name: organizations.name, role: memberships.role })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .where(eq(memberships.userId, user.id));
      expect(rows).toEqual([
        { id: user.defaultOrganizationId, name: "Grace Hopper's workspace", role: 'owner' },
      ]);
      const read = await getSession(bearer(session.sessionId));
      expect(read.json().data.user.defaultOrganizationId).toBe(user.defaultOrganizationId);
    });

    it('answers 400 listing every invalid field', async () => {
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [
          { email: 'not-an-email', password: '1234567', name: '' },
          ['body.email', 'body.name', 'body.password'],
        ],
        [
          { email: uniqueEmail(), password: 'p'.repeat(129), name: 'n'.repeat(101) },
          ['body.name', 'body.password'],
        ],
        [{ email: `${'a'.repeat(250)}@example.com`, password: PASSWORD, name: 'Long' }, ['body.email']],
        [{ email: uniqueEmail(), password: PASSWORD, name: '   ' }, ['body.name']],
        [{}, ['body.email', 'body.name', 'body.password']],
      ];
      for (const [payload, paths] of cases) {
        const response = await signUp(payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json()).toMatchObject(authError('Invalid request', 'VALIDATION_ERROR'));
        expect(detailPaths(response), JSON.stringify(payload)).toEqual(paths);
        expect(response.cookies).toEqual([]);
      }
    });

    it('accepts passwords of 8 and 128 characters and a name of 100', async () => {
      for (const [password, name] of [
        ['p'.repeat(8), 'Short'],
        ['p'.repeat(128), 'n'.repeat(100)],
      ]) {
        const response = await signUp({ email: uniqueEmail(), password, name });
        expect(response.statusCode).toBe(201);
      }
    });

    it('refuses an email that exists, however it is cased', async () => {
      const email = uniqueEmail('dup');
      expect((await signUp({ email, password: PASSWORD, name: 'First' })).statusCode).toBe(201);
      for (const again of [email, ` ${email.toUpperCase()} `]) {
        const response = await signUp({ email: again, password: 'another password', name: 'Second' });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual(authError('Email already exists', 'EMAIL_EXISTS'));
      }
      const rows = await ctx().database.db.select().from(users).where(eq(users.email, email));
      expect(rows.map((row) => row.name)).toEqual(['First']);
    });

    it('refuses a foreign Origin with 403, creating nothing', async () => {
      const email = uniqueEmail('cross-site');
      const response = await signUp(
        { email, password: PASSWORD, name: 'X' },
        { origin: 'https://evil.example' },
      );
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(authError('Origin not allowed', 'ORIGIN_NOT_ALLOWED'));
      expect(await ctx().database.db.$count(users, eq(users.email, email))).toBe(0);
    });
  });

  describe('POST /auth/sign-in', () => {
    it('opens a new session for the right password, answering 200 in the envelope', async () => {
      const user = await signUpUser(ctx().app);
      const response = await signIn({ email: ` ${user.email.toUpperCase()}`, password: user.password });
      expect(response.statusCode).toBe(200);
      const { data } = response.json();
      expect(data.user).toEqual({
        id: user.id,
        email: user.email,
        name: user.name,
        createdAt: expect.stringMatching(ISO),
        avatarUrl: null,
        defaultOrganizationId: user.organizationId,
      });
      expect(data.session.sessionId).not.toBe(user.token);
      expect(Math.abs(expiresInMs(response) - SESSION_TTL_MS)).toBeLessThan(5000);
      expect(cookiesOf(response)[SESSION_COOKIE]).toBe(data.session.sessionId);
      // Signing in again does not end the earlier session.
      expect((await getSession(user.headers)).statusCode).toBe(200);
    });

    it('answers 401 User not found for an unknown email and Invalid credentials for a wrong password', async () => {
      const user = await signUpUser(ctx().app);
      const unknown = await signIn({ email: uniqueEmail('nobody'), password: PASSWORD });
      expect(unknown.statusCode).toBe(401);
      expect(unknown.json()).toEqual(authError('User not found', 'USER_NOT_FOUND'));
      const wrong = await signIn({ email: user.email, password: `${user.password}!` });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toEqual(authError('Invalid credentials', 'INVALID_CREDENTIALS'));
      expect(wrong.cookies).toEqual([]);
    });

    it('answers 400 for a missing password or an invalid email', async () => {
      const response = await signIn({ email: 'nope' });
      expect(response.statusCode).toBe(400);
      expect(detailPaths(response)).toEqual(['body.email', 'body.password']);
    });

    it('refuses a foreign Origin and accepts the app origin', async () => {
      const user = await signUpUser(ctx().app);
      const credentials = { email: user.email, password: user.password };
      const foreign = await signIn(credentials, { origin: 'https://evil.example' });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()).toEqual(authError('Origin not allowed', 'ORIGIN_NOT_ALLOWED'));
      expect(foreign.cookies).toEqual([]);
      const own = await signIn(credentials, { origin: 'http://localhost:3000' });
      expect(own.statusCode).toBe(200);
    });

    it('allows 10 attempts per IP and email, then answers 429 with retry-after', async () => {
      const user = await signUpUser(ctx().app);
      const other = await signUpUser(ctx().app);
      for (let attempt = 1; attempt <= 10; attempt++) {
        const response = await signIn({ email: user.email, password: 'wrong password' });
        expect(response.statusCode, `attempt ${attempt}`).toBe(401);
      }
      // Even the right password, under another spelling of the email, is over the limit.
      const limited = await signIn({ email: user.email.toUpperCase(), password: user.password });
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({
        success: false,
        error: expect.stringContaining('Rate limit exceeded'),
        code: 'RATE_LIMITED',
      });
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);

      expect((await signIn({ email: other.email, password: other.password })).statusCode).toBe(200);
      const otherIp = await ctx().app.inject({
        method: 'POST',
        url: '/auth/sign-in',
        payload: { email: user.email, password: user.password },
        remoteAddress: '198.51.100.7',
      });
      expect(otherIp.statusCode).toBe(200);
    });
  });

  describe('session round trip', () => {
    it('by bearer: sign-up, sign-in, read the session, sign out, and the session is gone', async () => {
      const user = await signUpUser(ctx().app);
      const token = (await signIn({ email: user.email, password: user.password })).json().data.session
        .sessionId;

      const read = await getSession(bearer(token));
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual({
        success: true,
        data: {
          user: expect.objectContaining({ id: user.id, email: user.email, avatarUrl: null }),
          session: { sessionId: token, expiresAt: expect.stringMatching(ISO) },
        },
      });

      const out = await signOut(bearer(token));
      expect(out.statusCode).toBe(200);
      expect(out.json()).toEqual({ success: true, data: { message: 'Signed out' } });

      const after = await getSession(bearer(token));
      expect(after.statusCode).toBe(401);
      expect(after.json()).toEqual(authError('Invalid session', 'INVALID_SESSION'));
      // Only the session that signed out ends.
      expect((await getSession(user.headers)).statusCode).toBe(200);
      // Signing out again, or without any session, still succeeds.
      expect((await signOut(bearer(token))).statusCode).toBe(200);
      expect((await signOut({})).statusCode).toBe(200);
    });

    it('by cookie: sign-out needs the CSRF token of that session, then clears both cookies', async () => {
      const { cookie, csrf } = await cookieSession();
      const another = await cookieSession();

      const read = await getSession({ cookie });
      expect(read.statusCode).toBe(200);

      const refusals: Array<Record<string, string>> = [
        { cookie },
        { cookie, 'x-csrf-token': 'wrong' },
        { cookie, 'x-csrf-token': `${csrf.slice(0, -1)}x` },
        // The other session's CSRF cookie and header agree with each other, but not with this session.
        {
          cookie: cookieHeader({
            [SESSION_COOKIE]: another.cookies[SESSION_COOKIE] as string,
            [CSRF_COOKIE]: csrf,
          }),
          'x-csrf-token': csrf,
        },
        // The header alone, without the CSRF cookie it should echo.
        { cookie: `${SESSION_COOKIE}=${another.cookies[SESSION_COOKIE]}`, 'x-csrf-token': another.csrf },
      ];
      for (const headers of refusals) {
        const refused = await signOut(headers);
        expect(refused.statusCode, JSON.stringify(headers)).toBe(403);
        expect(refused.json()).toEqual(authError('CSRF token mismatch', 'CSRF_MISMATCH'));
        expect(refused.cookies).toEqual([]);
      }
      expect((await getSession({ cookie })).statusCode).toBe(200);
      expect((await getSession({ cookie: another.cookie })).statusCode).toBe(200);

      const out = await signOut({ cookie, 'x-csrf-token': csrf });
      expect(out.statusCode).toBe(200);
      expect(out.json()).toEqual({ success: true, data: { message: 'Signed out' } });
      const cleared = Object.fromEntries(out.cookies.map((entry) => [entry.name, entry]));
      for (const name of [SESSION_COOKIE, CSRF_COOKIE]) {
        expect(cleared[name], name).toMatchObject({ value: '', maxAge: 0, path: '/' });
      }
      const after = await getSession({ cookie });
      expect(after.statusCode).toBe(401);
      expect(after.json()).toEqual(authError('Invalid session', 'INVALID_SESSION'));
      expect((await getSession({ cookie: another.cookie })).statusCode).toBe(200);
    });
  });

  describe('authentication plugin', () => {
    it('checks CSRF on every state-changing method by cookie, never on reads or bearer requests', async () => {
      const { user, cookie, csrf } = await cookieSession();
      expect((await whoami('GET', { cookie })).json()).toEqual({
        via: 'cookie',
        userId: user.id,
        apiKeyId: null,
      });
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const refused = await whoami(method, { cookie });
        expect(refused.statusCode, method).toBe(403);
        expect(refused.json()).toEqual(authError('CSRF token mismatch', 'CSRF_MISMATCH'));
        const allowed = await whoami(method, { cookie, 'x-csrf-token': csrf });
        expect(allowed.statusCode, method).toBe(200);
        expect(allowed.json().via).toBe('cookie');
        const byBearer = await whoami(method, user.headers);
        expect(byBearer.json()).toEqual({ via: 'bearer', userId: user.id, apiKeyId: null });
      }
    });

    it('prefers the Authorization header over the session cookie', async () => {
      const cookieUser = await cookieSession();
      const bearerUser = await signUpUser(ctx().app);
      const response = await whoami('POST', { cookie: cookieUser.cookie, ...bearerUser.headers });
      expect(response.json()).toEqual({ via: 'bearer', userId: bearerUser.id, apiKeyId: null });
    });

    it('answers 401 without credentials and for credentials that are not a session', async () => {
      const user = await signUpUser(ctx().app);
      const anonymous = await getSession({});
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual(authError('Authentication required', 'UNAUTHORIZED'));
      for (const headers of [
        bearer('garbage'),
        bearer(`${user.token}x`),
        { authorization: `Basic ${Buffer.from(`${user.email}:${user.password}`).toString('base64')}` },
        { authorization: 'Basic x' },
        { authorization: 'Bearer' },
        { authorization: user.token },
        { cookie: `${SESSION_COOKIE}=` },
        { cookie: `${SESSION_COOKIE}=garbage` },
      ]) {
        const response = await getSession(headers);
        expect(response.statusCode, JSON.stringify(headers)).toBe(401);
        expect(response.json()).toEqual(authError('Invalid session', 'INVALID_SESSION'));
      }
    });

    it('accepts an API key as its user, but not where a session is needed', async () => {
      const user = await signUpUser(ctx().app);
      const key = `khk_${randomBytes(32).toString('base64url')}`;
      const [row] = await ctx()
        .database.db.insert(apiKeys)
        .values({ userId: user.id, name: 'ci', prefix: key.slice(0, 12), keyHash: sha256(key) })
        .returning({ id: apiKeys.id });
      expect((await whoami('POST', bearer(key))).json()).toEqual({
        via: 'api_key',
        userId: user.id,
        apiKeyId: row?.id,
      });
      const session = await getSession(bearer(key));
      expect(session.statusCode).toBe(401);
      expect(session.json()).toMatchObject({ success: false, code: 'SESSION_REQUIRED' });
      const unknownKey = await whoami('GET', bearer(`khk_${randomBytes(32).toString('base64url')}`));
      expect(unknownKey.json()).toEqual(authError('Invalid session', 'INVALID_SESSION'));
    });

    it('stores only the SHA-256 of the session token', async () => {
      const user = await signUpUser(ctx().app);
      const rows = await ctx().database.db.select().from(sessions).where(eq(sessions.userId, user.id));
      expect(rows.map((row) => row.tokenHash)).toEqual([sha256(user.token)]);
      expect(JSON.stringify(rows)).not.toContain(user.token);
    });
  });

  describe('session lifetime', () => {
    it('expires after 7 days without use', async () => {
      const { user, cookie } = await cookieSession();
      ctx().clock.advance(SESSION_TTL_MS + 1000);
      for (const headers of [user.headers, { cookie }]) {
        const response = await getSession(headers);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual(authError('Session expired', 'SESSION_EXPIRED'));
      }
    });

    it('keeps its expiry for the first 24 hours, then moves it to 7 days from the use', async () => {
      const user = await signUpUser(ctx().app);
      const initial = (await getSession(user.headers)).json().data.session.expiresAt;

      ctx().clock.advance(23 * 3600 * 1000);
      expect((await getSession(user.headers)).json().data.session.expiresAt).toBe(initial);

      ctx().clock.advance(2 * 3600 * 1000);
      const refreshed = await getSession(user.headers);
      expect(refreshed.statusCode).toBe(200);
      expect(Math.abs(expiresInMs(refreshed) - SESSION_TTL_MS)).toBeLessThan(5000);
      expect(refreshed.cookies).toEqual([]);
      const [row] = await ctx()
        .database.db.select()
        .from(sessions)
        .where(eq(sessions.tokenHash, sha256(user.token)));
      expect(row?.expiresAt.toISOString()).toBe(refreshed.json().data.session.expiresAt);
    });

    it('re-issues both cookies when a cookie session is refreshed', async () => {
      const { cookies, cookie } = await cookieSession();
      ctx().clock.advance(12 * 3600 * 1000);
      expect((await getSession({ cookie })).cookies).toEqual([]);

      ctx().clock.advance(13 * 3600 * 1000);
      const refreshed = await getSession({ cookie });
      expect(refreshed.statusCode).toBe(200);
      expect(Math.abs(expiresInMs(refreshed) - SESSION_TTL_MS)).toBeLessThan(5000);
      const reissued = Object.fromEntries(refreshed.cookies.map((entry) => [entry.name, entry]));
      expect(reissued[SESSION_COOKIE]).toMatchObject({
        value: cookies[SESSION_COOKIE],
        maxAge: 604800,
        httpOnly: true,
      });
      expect(reissued[CSRF_COOKIE]).toMatchObject({ value: cookies[CSRF_COOKIE], maxAge: 604800 });
    });

    it('stays alive past day 7 when used every two days', async () => {
      const user = await signUpUser(ctx().app);
      ctx().clock.advance(6 * DAY);
      expect((await getSession(user.headers)).statusCode).toBe(200);
      for (const day of [8, 10, 12, 14]) {
        ctx().clock.advance(2 * DAY);
        const response = await getSession(user.headers);
        expect(response.statusCode, `day ${day}`).toBe(200);
        expect(Math.abs(expiresInMs(response) - SESSION_TTL_MS)).toBeLessThan(5000);
      }
    });
  });

  describe('unknown /auth routes', () => {
    it('answer 404 in the error shape, for GET and POST', async () => {
      for (const [method, url] of [
        ['GET', '/auth/nonexistent'],
        ['POST', '/auth/nonexistent'],
        ['GET', '/auth/sign-in'],
        ['GET', '/auth/nested/unknown/path?x=1'],
      ] as const) {
        const response = await ctx().app.inject({
          method,
          url,
          ...(method === 'POST' ? { payload: {} } : {}),
        });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.json()).toEqual(
          authError(`Route ${method} ${url.split('?')[0]} not found`, 'NOT_FOUND'),
        );
      }
    });

    it('answer 404 whatever body they are sent: malformed, not JSON, or too large', async () => {
      for (const [contentType, payload] of [
        ['application/json', '{bad'],
        ['text/plain', 'hello'],
        ['application/json', JSON.stringify({ big: 'x'.repeat(2 * 1024 * 1024) })],
      ] as const) {
        const response = await ctx().app.inject({
          method: 'POST',
          url: '/auth/nonexistent',
          headers: { 'content-type': contentType },
          payload,
        });
        expect(response.statusCode, contentType).toBe(404);
        expect(response.json().code).toBe('NOT_FOUND');
      }
    });
  });
});

describe('cookies behind HTTPS', () => {
  const ctx = useTestApp({ env: { APP_URL: 'https://hub.example.com' } });

  it('marks both cookies Secure and accepts only the HTTPS app origin', async () => {
    const payload = { email: uniqueEmail(), password: PASSWORD, name: 'Secure' };
    const foreign = await ctx().app.inject({
      method: 'POST',
      url: '/auth/sign-up',
      payload,
      headers: { origin: 'http://localhost:3000' },
    });
    expect(foreign.statusCode).toBe(403);
    const response = await ctx().app.inject({
      method: 'POST',
      url: '/auth/sign-up',
      payload,
      headers: { origin: 'https://hub.example.com' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.cookies.map((cookie) => [cookie.name, cookie.secure])).toEqual([
      [SESSION_COOKIE, true],
      [CSRF_COOKIE, true],
    ]);
  });
});
