import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { apiKeys } from '../../db/schema/index.ts';
import { hashToken } from '../../lib/crypto.ts';

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SOME_ID = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

type Method = 'GET' | 'DELETE' | 'POST';

const ROUTES: Array<{ method: Method; url: string; payload?: object }> = [
  { method: 'POST', url: '/users/me/api-keys', payload: { name: 'ci' } },
  { method: 'GET', url: '/users/me/api-keys' },
  { method: 'DELETE', url: `/users/me/api-keys/${SOME_ID}` },
];

describe('/users/me/api-keys', () => {
  const ctx = useTestApp();
  const inject = (method: Method, url: string, headers: Record<string, string> = {}, payload?: object) =>
    ctx().app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  async function createKey(user: SignedUpUser, payload: object = { name: 'ci' }) {
    const response = await inject('POST', '/users/me/api-keys', user.headers, payload);
    expect(response.statusCode).toBe(201);
    return response.json();
  }

  const listKeys = async (user: SignedUpUser) => {
    const response = await inject('GET', '/users/me/api-keys', user.headers);
    expect(response.statusCode).toBe(200);
    return response.json().data;
  };

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  describe('authentication', () => {
    async function expectEvery401(headers: Record<string, string>, error: string, code: string) {
      for (const route of ROUTES) {
        const response = await inject(route.method, route.url, headers, route.payload);
        expect(response.statusCode, route.method).toBe(401);
        expect(response.json(), route.method).toEqual({ success: false, error, code });
      }
    }

    it('answers 401 without credentials, for a garbage token and for a signed-out session', async () => {
      await expectEvery401({}, 'Authentication required', 'UNAUTHORIZED');
      await expectEvery401(bearer('nonsense'), 'Invalid session', 'INVALID_SESSION');
      const user = await signUpUser(ctx().app);
      await inject('POST', '/auth/sign-out', user.headers);
      await expectEvery401(user.headers, 'Invalid session', 'INVALID_SESSION');
    });

    it('answers 401 Session expired for a session older than 7 days', async () => {
      const user = await signUpUser(ctx().app);
      ctx().clock.advance(8 * DAY);
      try {
        await expectEvery401(user.headers, 'Session expired', 'SESSION_EXPIRED');
      } finally {
        ctx().clock.reset();
      }
    });
  });

  describe('POST /users/me/api-keys', () => {
    it('returns the key once, and stores only its hash', async () => {
      const user = await signUpUser(ctx().app);
      const response = await inject('POST', '/users/me/api-keys', user.headers, { name: '  CI deploys ' });
      expect(response.statusCode).toBe(201);
      const created = response.json();
      expect(created).toEqual({
        id: expect.any(String),
        name: 'CI deploys',
        prefix: created.key.slice(0, 12),
        key: expect.stringMatching(/^khk_[A-Za-z0-9_-]{43}$/),
        createdAt: expect.stringMatching(ISO),
        expiresAt: null,
        lastUsedAt: null,
      });
      expect(created.prefix).toMatch(/^khk_.{8}$/);

      const [row] = await ctx().database.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
      expect(row).toMatchObject({ userId: user.id, keyHash: hashToken(created.key), prefix: created.prefix });
      expect(JSON.stringify(row)).not.toContain(created.key);
    });

    it('takes a future expiry', async () => {
      const user = await signUpUser(ctx().app);
      const expiresAt = new Date(Date.now() + 30 * DAY).toISOString();
      expect((await createKey(user, { name: 'temp', expiresAt })).expiresAt).toBe(expiresAt);
      const offset = await createKey(user, { name: 'offset', expiresAt: '2099-01-01T12:00:00+02:00' });
      expect(offset.expiresAt).toBe('2099-01-01T10:00:00.000Z');
      expect((await createKey(user, { name: 'never', expiresAt: null })).expiresAt).toBeNull();
    });

    it('lists every invalid field', async () => {
      const user = await signUpUser(ctx().app);
      const cases: Array<[object, string[]]> = [
        [{}, ['body.name']],
        [{ name: '' }, ['body.name']],
        [{ name: 'x'.repeat(101), expiresAt: 'tomorrow' }, ['body.expiresAt', 'body.name']],
        [{ name: 7, expiresAt: 1_900_000_000 }, ['body.expiresAt', 'body.name']],
      ];
      for (const [payload, paths] of cases) {
        const response = await inject('POST', '/users/me/api-keys', user.headers, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        const body = response.json();
        expect(body).toMatchObject({ success: false, error: 'Invalid request', code: 'VALIDATION_ERROR' });
        expect(body.details.map((detail: { path: string }) => detail.path).sort()).toEqual(paths);
      }
      expect(await listKeys(user)).toEqual([]);
    });

    it('refuses an expiry in the past', async () => {
      const user = await signUpUser(ctx().app);
      const response = await inject('POST', '/users/me/api-keys', user.headers, {
        name: 'old',
        expiresAt: new Date(Date.now() - 1000).toISOString(),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        success: false,
        error: 'Invalid request',
        code: 'VALIDATION_ERROR',
        details: [{ path: 'body.expiresAt', message: 'must be in the future' }],
      });
      expect(await listKeys(user)).toEqual([]);
    });
  });

  describe('GET /users/me/api-keys', () => {
    it('lists the keys newest first, without the keys themselves', async () => {
      const user = await signUpUser(ctx().app);
      const first = await createKey(user, { name: 'first' });
      const second = await createKey(user, { name: 'second' });
      const response = await inject('GET', '/users/me/api-keys', user.headers);
      expect(response.statusCode).toBe(200);
      const { key: _secondKey, ...secondPublic } = second;
      const { key: _firstKey, ...firstPublic } = first;
      expect(response.json()).toEqual({ data: [secondPublic, firstPublic] });
      expect(response.body).not.toContain(first.key);
      expect(response.body).not.toContain(second.key);
    });

    it("does not show another user's keys", async () => {
      const ada = await signUpUser(ctx().app);
      const bob = await signUpUser(ctx().app);
      await createKey(ada);
      expect(await listKeys(bob)).toEqual([]);
      expect(await listKeys(ada)).toHaveLength(1);
    });
  });

  describe('authenticating with a key', () => {
    it('acts as its user and records when it was used', async () => {
      const user = await signUpUser(ctx().app);
      const created = await createKey(user);
      const response = await inject('GET', '/users/me', bearer(created.key));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: user.id, email: user.email });
      const [listed] = await listKeys(user);
      expect(listed.lastUsedAt).toMatch(ISO);
      expect(Date.parse(listed.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(created.createdAt) - 1000);
    });

    it('answers 401 Session expired once the key has expired', async () => {
      const user = await signUpUser(ctx().app);
      const created = await createKey(user, {
        name: 'hour',
        expiresAt: new Date(Date.now() + HOUR).toISOString(),
      });
      expect((await inject('GET', '/users/me', bearer(created.key))).statusCode).toBe(200);
      ctx().clock.advance(2 * HOUR);
      try {
        const response = await inject('GET', '/users/me', bearer(created.key));
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({
          success: false,
          error: 'Session expired',
          code: 'SESSION_EXPIRED',
        });
      } finally {
        ctx().clock.reset();
      }
    });
  });

  describe('DELETE /users/me/api-keys/{id}', () => {
    it('deletes the key: it stops working and leaves the list', async () => {
      const user = await signUpUser(ctx().app);
      const doomed = await createKey(user, { name: 'doomed' });
      const kept = await createKey(user, { name: 'kept' });
      const response = await inject('DELETE', `/users/me/api-keys/${doomed.id}`, user.headers);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: doomed.id, deleted: true });

      const refused = await inject('GET', '/users/me', bearer(doomed.key));
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ success: false, error: 'Invalid session', code: 'INVALID_SESSION' });
      expect((await inject('GET', '/users/me', bearer(kept.key))).statusCode).toBe(200);
      expect((await listKeys(user)).map((key: { id: string }) => key.id)).toEqual([kept.id]);

      const again = await inject('DELETE', `/users/me/api-keys/${doomed.id}`, user.headers);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ success: false, error: 'API key not found', code: 'NOT_FOUND' });
    });

    it("answers 404 for another user's key and leaves it working", async () => {
      const ada = await signUpUser(ctx().app);
      const bob = await signUpUser(ctx().app);
      const adas = await createKey(ada);
      const response = await inject('DELETE', `/users/me/api-keys/${adas.id}`, bob.headers);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ success: false, error: 'API key not found', code: 'NOT_FOUND' });
      expect((await inject('GET', '/users/me', bearer(adas.key))).statusCode).toBe(200);
      expect(await listKeys(ada)).toHaveLength(1);
    });

    it('answers 404 for a malformed id', async () => {
      const user = await signUpUser(ctx().app);
      const response = await inject('DELETE', '/users/me/api-keys/not-a-uuid', user.headers);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    });
  });
});
