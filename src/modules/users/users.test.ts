import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { cookieHeader, cookiesOf, type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { apiKeys, memberships, organizations, sessions, users } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';

const DAY = 24 * 3600 * 1000;
const SOME_ID = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Method = 'GET' | 'PATCH' | 'DELETE' | 'POST';

/** Every route of the users module, with a body that would be valid. */
const ROUTES: Array<{ method: Method; url: string; payload?: object }> = [
  { method: 'GET', url: '/users/me' },
  { method: 'PATCH', url: '/users/me', payload: { name: 'New' } },
  { method: 'DELETE', url: '/users/me' },
  { method: 'GET', url: '/users/me/export' },
  { method: 'GET', url: '/users/me/sessions' },
  { method: 'DELETE', url: `/users/me/sessions/${SOME_ID}` },
  { method: 'DELETE', url: '/users/me/sessions' },
  { method: 'POST', url: '/users/me/api-keys', payload: { name: 'ci' } },
  { method: 'GET', url: '/users/me/api-keys' },
  { method: 'DELETE', url: `/users/me/api-keys/${SOME_ID}` },
];

describe('/users/me', () => {
  const ctx = useTestApp();
  const inject = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) =>
    ctx().app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const db = () => ctx().database.db;

  async function addMember(user: SignedUpUser, organizationId: string, role: Role) {
    await db().insert(memberships).values({ organizationId, userId: user.id, role });
  }

  async function expectEvery401(headers: Record<string, string>, error: string, code: string) {
    for (const route of ROUTES) {
      const response = await inject(route.method, route.url, headers, route.payload);
      const where = `${route.method} ${route.url}`;
      expect(response.statusCode, where).toBe(401);
      expect(response.json(), where).toEqual({ success: false, error, code });
    }
  }

  describe('authentication on every route', () => {
    it('answers 401 without credentials', async () => {
      await expectEvery401({}, 'Authentication required', 'UNAUTHORIZED');
    });

    it('answers 401 for a garbage token', async () => {
      await expectEvery401({ authorization: 'Bearer garbage' }, 'Invalid session', 'INVALID_SESSION');
      await expectEvery401({ authorization: 'Bearer khk_garbage' }, 'Invalid session', 'INVALID_SESSION');
    });

    it('answers 401 for a session that was signed out', async () => {
      const user = await signUpUser(ctx().app);
      const signOut = await inject('POST', '/auth/sign-out', user.headers);
      expect(signOut.statusCode).toBe(200);
      await expectEvery401(user.headers, 'Invalid session', 'INVALID_SESSION');
    });

    it('answers 401 Session expired once the session is older than 7 days', async () => {
      const user = await signUpUser(ctx().app);
      ctx().clock.advance(8 * DAY);
      try {
        await expectEvery401(user.headers, 'Session expired', 'SESSION_EXPIRED');
      } finally {
        ctx().clock.reset();
      }
    });
  });

  describe('GET /users/me', () => {
    it('returns the profile and the organizations with the role in each, nothing more', async () => {
      const ada = await signUpUser(ctx().app, { name: 'Ada' });
      const response = await inject('GET', '/users/me', ada.headers);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        id: ada.id,
        email: ada.email,
        name: 'Ada',
        avatarUrl: null,
        defaultOrganizationId: ada.organizationId,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        organizations: [
          { id: ada.organizationId, name: "Ada's workspace", slug: expect.any(String), role: 'owner' },
        ],
      });
    });

    it('lists every organization the user belongs to', async () => {
      const ada = await signUpUser(ctx().app, { name: 'Ada' });
      const bob = await signUpUser(ctx().app, { name: 'Bob' });
      await addMember(ada, bob.organizationId, 'viewer');
      const response = await inject('GET', '/users/me', ada.headers);
      expect(response.json().organizations).toEqual([
        { id: ada.organizationId, name: "Ada's workspace", slug: expect.any(String), role: 'owner' },
        { id: bob.organizationId, name: "Bob's workspace", slug: expect.any(String), role: 'viewer' },
      ]);
      // Bob sees only his own organization, not Ada's.
      const bobs = await inject('GET', '/users/me', bob.headers);
      expect(bobs.json().organizations.map((org: { id: string }) => org.id)).toEqual([bob.organizationId]);
    });
  });

  describe('PATCH /users/me', () => {
    it('updates the name and avatar, bumps updatedAt, and the change reads back', async () => {
      const ada = await signUpUser(ctx().app, { name: 'Ada' });
      const before = (await inject('GET', '/users/me', ada.headers)).json();
      ctx().clock.advance(60_000);
      try {
        const response = await inject('PATCH', '/users/me', ada.headers, {
          name: '  Ada Lovelace  ',
          avatarUrl: 'https://cdn.example.com/ada.png',
          ignoredField: true,
        });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({
          ...before,
          name: 'Ada Lovelace',
          avatarUrl: 'https://cdn.example.com/ada.png',
          updatedAt: expect.stringMatching(ISO),
        });
        expect(Date.parse(response.json().updatedAt) - Date.parse(before.updatedAt)).toBeGreaterThanOrEqual(
          60_000,
        );
        expect((await inject('GET', '/users/me', ada.headers)).json()).toEqual(response.json());
      } finally {
        ctx().clock.reset();
      }
    });

    it('removes the avatar with null', async () => {
      const ada = await signUpUser(ctx().app);
      await inject('PATCH', '/users/me', ada.headers, { avatarUrl: 'http://example.com/a.png' });
      const response = await inject('PATCH', '/users/me', ada.headers, { avatarUrl: null });
      expect(response.statusCode).toBe(200);
      expect(response.json().avatarUrl).toBeNull();
      expect((await inject('GET', '/users/me', ada.headers)).json().avatarUrl).toBeNull();
    });

    it('changes nothing, updatedAt included, for an empty body', async () => {
      const ada = await signUpUser(ctx().app);
      const before = (await inject('GET', '/users/me', ada.headers)).json();
      const response = await inject('PATCH', '/users/me', ada.headers, {});
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(before);
    });

    it('lists every invalid field', async () => {
      const ada = await signUpUser(ctx().app);
      const cases: Array<[object, string[]]> = [
        [
          { name: '   ', avatarUrl: 'ftp://example.com/a.png', defaultOrganizationId: 'nope' },
          ['body.avatarUrl', 'body.defaultOrganizationId', 'body.name'],
        ],
        [{ name: 'x'.repeat(101), avatarUrl: 'not a url' }, ['body.avatarUrl', 'body.name']],
        [{ avatarUrl: `https://example.com/${'a'.repeat(2030)}` }, ['body.avatarUrl']],
        [{ name: 42, defaultOrganizationId: null }, ['body.defaultOrganizationId', 'body.name']],
      ];
      for (const [payload, paths] of cases) {
        const response = await inject('PATCH', '/users/me', ada.headers, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        const body = response.json();
        expect(body).toMatchObject({ success: false, error: 'Invalid request', code: 'VALIDATION_ERROR' });
        expect(body.details.map((detail: { path: string }) => detail.path).sort()).toEqual(paths);
      }
      expect((await inject('GET', '/users/me', ada.headers)).json().name).toBe('Test User');
    });

    it('accepts a URL of exactly 2048 characters', async () => {
      const ada = await signUpUser(ctx().app);
      const url = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
      const response = await inject('PATCH', '/users/me', ada.headers, { avatarUrl: url });
      expect(response.statusCode).toBe(200);
      expect(response.json().avatarUrl).toBe(url);
    });

    it('sets the default organization to one the user belongs to', async () => {
      const ada = await signUpUser(ctx().app);
      const bob = await signUpUser(ctx().app);
      await addMember(ada, bob.organizationId, 'member');
      const response = await inject('PATCH', '/users/me', ada.headers, {
        defaultOrganizationId: bob.organizationId.toUpperCase(),
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().defaultOrganizationId).toBe(bob.organizationId);
      expect((await inject('GET', '/users/me', ada.headers)).json().defaultOrganizationId).toBe(
        bob.organizationId,
      );
    });

    it('refuses with 403 an organization the user does not belong to, or that does not exist', async () => {
      const ada = await signUpUser(ctx().app);
      const bob = await signUpUser(ctx().app);
      for (const defaultOrganizationId of [bob.organizationId, SOME_ID]) {
        const response = await inject('PATCH', '/users/me', ada.headers, {
          defaultOrganizationId,
          name: 'X',
        });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual({
          success: false,
          error: 'You are not a member of this organization',
          code: 'NOT_A_MEMBER',
        });
      }
      const after = (await inject('GET', '/users/me', ada.headers)).json();
      expect(after).toMatchObject({ defaultOrganizationId: ada.organizationId, name: 'Test User' });
    });

    it('needs the CSRF token when authenticated by the session cookie', async () => {
      const ada = await signUpUser(ctx().app);
      const signIn = await inject('POST', '/auth/sign-in', {}, { email: ada.email, password: ada.password });
      const cookies = cookiesOf(signIn);
      const withoutToken = await inject(
        'PATCH',
        '/users/me',
        { cookie: cookieHeader(cookies) },
        { name: 'C' },
      );
      expect(withoutToken.statusCode).toBe(403);
      expect(withoutToken.json()).toEqual({
        success: false,
        error: 'CSRF token mismatch',
        code: 'CSRF_MISMATCH',
      });
      const withToken = await inject(
        'PATCH',
        '/users/me',
        { cookie: cookieHeader(cookies), 'x-csrf-token': cookies['svc-auth.csrf_token'] as string },
        { name: 'C' },
      );
      expect(withToken.statusCode).toBe(200);
      expect(withToken.json().name).toBe('C');
    });
  });

  describe('DELETE /users/me', () => {
    it('deletes the user, their sessions, keys and sole-member organization', async () => {
      const ada = await signUpUser(ctx().app);
      const key = (await inject('POST', '/users/me/api-keys', ada.headers, { name: 'ci' })).json().key;
      const response = await inject('DELETE', '/users/me', ada.headers);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: ada.id, deleted: true });

      for (const authorization of [`Bearer ${ada.token}`, `Bearer ${key}`]) {
        const after = await inject('GET', '/users/me', { authorization });
        expect(after.statusCode).toBe(401);
        expect(after.json()).toMatchObject({ error: 'Invalid session' });
      }
      expect(await db().select().from(users).where(eq(users.id, ada.id))).toEqual([]);
      expect(await db().select().from(organizations).where(eq(organizations.id, ada.organizationId))).toEqual(
        [],
      );
      expect(await db().select().from(sessions).where(eq(sessions.userId, ada.id))).toEqual([]);
      expect(await db().select().from(apiKeys).where(eq(apiKeys.userId, ada.id))).toEqual([]);
      const signIn = await inject('POST', '/auth/sign-in', {}, { email: ada.email, password: ada.password });
      expect(signIn.statusCode).toBe(401);
    });

    it('refuses while the user is the only owner of an organization with other members', async () => {
      const ada = await signUpUser(ctx().app);
      const bob = await signUpUser(ctx().app);
      await addMember(bob, ada.organizationId, 'admin');
      const response = await inject('DELETE', '/users/me', ada.headers);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        success: false,
        error:
          'You are the only owner of "Test User\'s workspace", which has other members: make another member an owner or remove them first',
        code: 'SOLE_OWNER',
      });
      expect((await inject('GET', '/users/me', ada.headers)).statusCode).toBe(200);
      expect(
        await db().select().from(organizations).where(eq(organizations.id, ada.organizationId)),
      ).toHaveLength(1);
    });

    it('deletes an owner who shares ownership, leaving the organization to the other owner', async () => {
      const ada = await signUpUser(ctx().app);
      const bob = await signUpUser(ctx().app);
      await addMember(bob, ada.organizationId, 'owner');
      const response = await inject('DELETE', '/users/me', ada.headers);
      expect(response.statusCode).toBe(200);
      const bobs = (await inject('GET', '/users/me', bob.headers)).json();
      expect(
        bobs.organizations.map((org: { id: string; role: string }) => [org.id, org.role]).sort(),
      ).toEqual(
        [
          [ada.organizationId, 'owner'],
          [bob.organizationId, 'owner'],
        ].sort(),
      );
      expect(
        await db().select().from(memberships).where(eq(memberships.organizationId, ada.organizationId)),
      ).toEqual([expect.objectContaining({ userId: bob.id, role: 'owner' })]);
    });

    it('removes the memberships of a plain member and keeps those organizations', async () => {
      const ada = await signUpUser(ctx().app);
      const bob = await signUpUser(ctx().app);
      await addMember(ada, bob.organizationId, 'member');
      expect((await inject('DELETE', '/users/me', ada.headers)).statusCode).toBe(200);
      const bobs = (await inject('GET', '/users/me', bob.headers)).json();
      expect(bobs.organizations).toEqual([
        expect.objectContaining({ id: bob.organizationId, role: 'owner' }),
      ]);
      expect(await db().select().from(memberships).where(eq(memberships.userId, ada.id))).toEqual([]);
    });

    it('clears the session cookies of a cookie-authenticated caller', async () => {
      const ada = await signUpUser(ctx().app);
      const signIn = await inject('POST', '/auth/sign-in', {}, { email: ada.email, password: ada.password });
      const cookies = cookiesOf(signIn);
      const response = await inject('DELETE', '/users/me', {
        cookie: cookieHeader(cookies),
        'x-csrf-token': cookies['svc-auth.csrf_token'] as string,
      });
      expect(response.statusCode).toBe(200);
      expect(cookiesOf(response)).toEqual({ 'svc-auth.session_token': '', 'svc-auth.csrf_token': '' });
    });
  });
});
