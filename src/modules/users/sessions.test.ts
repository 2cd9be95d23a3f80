import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { cookieHeader, cookiesOf, type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';

const DAY = 24 * 3600 * 1000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Method = 'GET' | 'DELETE' | 'POST';
type Session = { id: string; userAgent: string; current: boolean };

describe('/users/me/sessions', () => {
  const ctx = useTestApp();
  const inject = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) =>
    ctx().app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  async function signIn(user: SignedUpUser, userAgent: string) {
    const response = await inject(
      'POST',
      '/auth/sign-in',
      { 'user-agent': userAgent },
      { email: user.email, password: user.password },
    );
    expect(response.statusCode).toBe(200);
    const token: string = response.json().data.session.sessionId;
    return { token, headers: { authorization: `Bearer ${token}` }, cookies: cookiesOf(response) };
  }

  const list = async (headers: Record<string, string>): Promise<Session[]> => {
    const response = await inject('GET', '/users/me/sessions', headers);
    expect(response.statusCode).toBe(200);
    return response.json().data;
  };

  async function expectRevoked(headers: Record<string, string>) {
    const response = await inject('GET', '/users/me', headers);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ success: false, error: 'Invalid session', code: 'INVALID_SESSION' });
  }

  /** A user with three sessions: sign-up ("lightMyRequest"), then "Laptop", then "Phone". */
  async function userWithThreeSessions() {
    const user = await signUpUser(ctx().app);
    const laptop = await signIn(user, 'Laptop');
    const phone = await signIn(user, 'Phone');
    return { user, laptop, phone };
  }

  describe('GET /users/me/sessions', () => {
    it('lists the active sessions newest first, marks the current one, and shows no token', async () => {
      const { user, laptop, phone } = await userWithThreeSessions();
      const response = await inject('GET', '/users/me/sessions', laptop.headers);
      expect(response.statusCode).toBe(200);
      const { data } = response.json();
      expect(data).toEqual(
        ['Phone', 'Laptop', 'lightMyRequest'].map((userAgent) => ({
          id: expect.stringMatching(UUID),
          createdAt: expect.stringMatching(ISO),
          expiresAt: expect.stringMatching(ISO),
          lastUsedAt: expect.stringMatching(ISO),
          userAgent,
          ip: '127.0.0.1',
          current: userAgent === 'Laptop',
        })),
      );
      for (const token of [user.token, laptop.token, phone.token]) expect(response.body).not.toContain(token);
      expect(Date.parse(data[0].expiresAt) - Date.parse(data[0].createdAt)).toBeGreaterThan(6.9 * DAY);
    });

    it('leaves out expired sessions', async () => {
      const { user } = await userWithThreeSessions();
      ctx().clock.advance(8 * DAY);
      try {
        const fresh = await signIn(user, 'Tablet');
        expect((await list(fresh.headers)).map((session) => [session.userAgent, session.current])).toEqual([
          ['Tablet', true],
        ]);
      } finally {
        ctx().clock.reset();
      }
    });

    it("shows only the caller's own sessions", async () => {
      const { user } = await userWithThreeSessions();
      const other = await signUpUser(ctx().app);
      const mine = await list(user.headers);
      const theirs = await list(other.headers);
      expect(mine).toHaveLength(3);
      expect(theirs).toHaveLength(1);
      expect(mine.map((session) => session.id)).not.toContain(theirs[0]?.id);
    });
  });

  describe('DELETE /users/me/sessions/{id}', () => {
    it('revokes one session: its token stops working, the others go on', async () => {
      const { user, laptop, phone } = await userWithThreeSessions();
      const target = (await list(user.headers)).find((session) => session.userAgent === 'Laptop') as Session;
      const response = await inject('DELETE', `/users/me/sessions/${target.id}`, user.headers);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: target.id, deleted: true });
      await expectRevoked(laptop.headers);
      expect((await inject('GET', '/users/me', phone.headers)).statusCode).toBe(200);
      expect((await list(user.headers)).map((session) => session.userAgent)).toEqual([
        'Phone',
        'lightMyRequest',
      ]);

      const again = await inject('DELETE', `/users/me/sessions/${target.id}`, user.headers);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ success: false, error: 'Session not found', code: 'NOT_FOUND' });
    });

    it('can revoke the current session', async () => {
      const { user } = await userWithThreeSessions();
      const current = (await list(user.headers)).find((session) => session.current) as Session;
      const response = await inject('DELETE', `/users/me/sessions/${current.id}`, user.headers);
      expect(response.statusCode).toBe(200);
      await expectRevoked(user.headers);
    });

    it("answers 404 for another user's session and leaves it alone", async () => {
      const { user, phone } = await userWithThreeSessions();
      const other = await signUpUser(ctx().app);
      const target = (await list(user.headers)).find((session) => session.userAgent === 'Phone') as Session;
      const response = await inject('DELETE', `/users/me/sessions/${target.id}`, other.headers);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ success: false, error: 'Session not found', code: 'NOT_FOUND' });
      expect((await inject('GET', '/users/me', phone.headers)).statusCode).toBe(200);
      expect(await list(user.headers)).toHaveLength(3);
    });

    it('answers 404 for an unknown or malformed id', async () => {
      const user = await signUpUser(ctx().app);
      for (const id of ['0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091', 'not-a-uuid', '123']) {
        const response = await inject('DELETE', `/users/me/sessions/${id}`, user.headers);
        expect(response.statusCode, id).toBe(404);
        expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
      }
    });

    it('clears the cookies when a cookie caller revokes its own session', async () => {
      const user = await signUpUser(ctx().app);
      const browser = await signIn(user, 'Browser');
      const current = (await list(browser.headers)).find((session) => session.current) as Session;
      const headers = { cookie: cookieHeader(browser.cookies) };
      const refused = await inject('DELETE', `/users/me/sessions/${current.id}`, headers);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ success: false, error: 'CSRF token mismatch', code: 'CSRF_MISMATCH' });

      const response = await inject('DELETE', `/users/me/sessions/${current.id}`, {
        ...headers,
        'x-csrf-token': browser.cookies['svc-auth.csrf_token'] as string,
      });
      expect(response.statusCode).toBe(200);
      expect(cookiesOf(response)).toEqual({ 'svc-auth.session_token': '', 'svc-auth.csrf_token': '' });
      await expectRevoked(browser.headers);
    });
  });

  describe('DELETE /users/me/sessions', () => {
    it('revokes every session but the current one', async () => {
      const { user, laptop, phone } = await userWithThreeSessions();
      const other = await signUpUser(ctx().app);
      const response = await inject('DELETE', '/users/me/sessions', laptop.headers);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ deleted: 2 });
      await expectRevoked(user.headers);
      await expectRevoked(phone.headers);
      expect((await list(laptop.headers)).map((session) => [session.userAgent, session.current])).toEqual([
        ['Laptop', true],
      ]);
      // Another user's sessions are untouched.
      expect((await inject('GET', '/users/me', other.headers)).statusCode).toBe(200);

      const again = await inject('DELETE', '/users/me/sessions', laptop.headers);
      expect(again.json()).toEqual({ deleted: 0 });
    });

    it('revokes all of them when the caller is an API key', async () => {
      const { user, laptop, phone } = await userWithThreeSessions();
      const key = (await inject('POST', '/users/me/api-keys', user.headers, { name: 'ops' })).json().key;
      const byKey = { authorization: `Bearer ${key}` };
      expect((await list(byKey)).map((session) => session.current)).toEqual([false, false, false]);
      const response = await inject('DELETE', '/users/me/sessions', byKey);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ deleted: 3 });
      for (const headers of [user.headers, laptop.headers, phone.headers]) await expectRevoked(headers);
      expect(await list(byKey)).toEqual([]);
    });
  });
});
