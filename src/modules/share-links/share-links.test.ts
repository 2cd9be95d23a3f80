import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { createVideoRow } from '../../../test/helpers/library.ts';
import { hashToken } from '../../lib/crypto.ts';
import {
  errorBody,
  HOUR,
  isoDate,
  PASSWORD,
  pathsOf,
  unknownId,
  useShareLinkTestApp,
} from './test-support.ts';

const CREATED_KEYS = [
  'allowedEmailDomains',
  'createdAt',
  'expiresAt',
  'hasPassword',
  'id',
  'maxViews',
  'token',
  'url',
  'viewCount',
];
const LISTED_KEYS = [
  'allowedEmailDomains',
  'createdAt',
  'expiresAt',
  'hasPassword',
  'id',
  'maxViews',
  'revokedAt',
  'viewCount',
];

describe('share link management', () => {
  const { ctx, team, newVideo, call, createLink, open, storedLink, activityFor } = useShareLinkTestApp();
  let owner: SignedUpUser;
  let admin: SignedUpUser;
  let member: SignedUpUser;
  let viewer: SignedUpUser;
  let outsider: SignedUpUser;
  let videoId: string;
  beforeAll(() => {
    ({ owner, admin, member, viewer, outsider, videoId } = team());
  });

  describe('POST /videos/{id}/share-links', () => {
    it('creates a link with every option, returns the token once and stores only its hash', async () => {
      const expiresAt = new Date(ctx().clock.now().getTime() + 24 * HOUR).toISOString();
      const response = await call(owner, 'POST', `/videos/${videoId}/share-links`, {
        password: PASSWORD,
        expiresAt,
        maxViews: 5,
        allowedEmailDomains: [' Example.COM', 'partner.io', 'example.com'],
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(CREATED_KEYS);
      expect(body).toEqual({
        id: expect.any(String),
        token: expect.stringMatching(/^[\w-]{43}$/),
        url: `https://hub.example.com/share/${body.token}`,
        expiresAt,
        maxViews: 5,
        viewCount: 0,
        hasPassword: true,
        allowedEmailDomains: ['example.com', 'partner.io'],
        createdAt: isoDate,
      });

      const row = await storedLink(body.id);
      expect(row?.tokenHash).toBe(hashToken(body.token));
      expect(JSON.stringify(row)).not.toContain(body.token);
      expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
      expect(response.body).not.toContain(row?.passwordHash);
      expect(response.body).not.toContain('argon2');
      expect(row).toMatchObject({ videoId, organizationId: owner.organizationId, createdBy: owner.id });

      expect(await activityFor(body.id)).toEqual([
        {
          action: 'share_link.created',
          actorId: owner.id,
          organizationId: owner.organizationId,
          targetType: 'share_link',
          metadata: { videoId, hasPassword: true, maxViews: 5 },
        },
      ]);
    });

    it('creates an unrestricted link without a body', async () => {
      const response = await ctx().app.inject({
        method: 'POST',
        url: `/videos/${videoId}/share-links`,
        headers: owner.headers,
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({
        expiresAt: null,
        maxViews: null,
        hasPassword: false,
        allowedEmailDomains: null,
      });
      const tokens = new Set([response.json().token, (await createLink()).token]);
      expect(tokens.size).toBe(2);
    });

    it('rejects invalid options with every failing field', async () => {
      const response = await call(owner, 'POST', `/videos/${videoId}/share-links`, {
        password: 'short',
        expiresAt: 'tomorrow',
        maxViews: 0,
        allowedEmailDomains: ['not a domain', 'x'],
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
      expect(pathsOf(response.json())).toEqual([
        'body.allowedEmailDomains.0',
        'body.allowedEmailDomains.1',
        'body.expiresAt',
        'body.maxViews',
        'body.password',
      ]);

      const tooMany = await call(owner, 'POST', `/videos/${videoId}/share-links`, {
        password: 'p'.repeat(129),
        maxViews: 1_000_001,
        allowedEmailDomains: Array.from({ length: 21 }, (_, index) => `d${index}.com`),
      });
      expect(tooMany.statusCode).toBe(400);
      expect(pathsOf(tooMany.json())).toEqual(['body.allowedEmailDomains', 'body.maxViews', 'body.password']);
    });

    it('rejects an expiry that is not in the future', async () => {
      const response = await call(owner, 'POST', `/videos/${videoId}/share-links`, {
        expiresAt: new Date(ctx().clock.now().getTime() - 1000).toISOString(),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        ...errorBody('VALIDATION_ERROR', 'Invalid request'),
        details: [{ path: 'body.expiresAt', message: 'must be in the future' }],
      });
    });

    it("lets an admin share anyone's video; not a member who is not the author, nor a viewer", async () => {
      expect((await call(admin, 'POST', `/videos/${videoId}/share-links`, {})).statusCode).toBe(201);
      for (const user of [member, viewer]) {
        const response = await call(user, 'POST', `/videos/${videoId}/share-links`, {});
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      const own = await createVideoRow(ctx().database.db, {
        organizationId: owner.organizationId,
        authorId: member.id,
      });
      expect((await call(member, 'POST', `/videos/${own.id}/share-links`, {})).statusCode).toBe(201);
    });

    it('answers 404 for videos of other organizations, unknown, deleted or malformed ids', async () => {
      const deleted = await newVideo({ isDeleted: true, deletedAt: new Date() });
      for (const [user, id] of [
        [outsider, videoId],
        [owner, unknownId],
        [owner, deleted.id],
        [owner, 'not-a-uuid'],
      ] as const) {
        const response = await call(user, 'POST', `/videos/${id}/share-links`, {});
        expect(response.statusCode, id).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND'));
      }
    });

    it('answers 401 without credentials or with an invalid token, before validation', async () => {
      const anonymous = await call(null, 'POST', `/videos/${videoId}/share-links`, { maxViews: 0 });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
      const invalid = await call(
        null,
        'POST',
        `/videos/${videoId}/share-links`,
        {},
        { authorization: 'Bearer nope' },
      );
      expect(invalid.statusCode).toBe(401);
      expect(invalid.json()).toEqual(errorBody('INVALID_SESSION', 'Invalid session'));
    });
  });

  describe('GET /videos/{id}/share-links', () => {
    it('lists the links of one video, newest first, without tokens or password hashes', async () => {
      const video = await newVideo();
      const first = await createLink({ password: PASSWORD }, video.id);
      const second = await createLink({ maxViews: 3 }, video.id);
      const response = await call(owner, 'GET', `/videos/${video.id}/share-links`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(Object.keys(body)).toEqual(['data']);
      expect(body.data.map((link: { id: string }) => link.id)).toEqual([second.id, first.id]);
      for (const link of body.data) expect(Object.keys(link).sort()).toEqual(LISTED_KEYS);
      expect(body.data[1]).toEqual({
        id: first.id,
        expiresAt: null,
        maxViews: null,
        viewCount: 0,
        hasPassword: true,
        allowedEmailDomains: null,
        revokedAt: null,
        createdAt: first.createdAt,
      });
      expect(response.body).not.toContain(first.token);
      expect(response.body).not.toContain('argon2');
    });

    it('is for the author and admins only; other organizations get 404; anonymous 401', async () => {
      expect((await call(admin, 'GET', `/videos/${videoId}/share-links`)).statusCode).toBe(200);
      const forbidden = await call(member, 'GET', `/videos/${videoId}/share-links`);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      const foreign = await call(outsider, 'GET', `/videos/${videoId}/share-links`);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toEqual(errorBody('NOT_FOUND', 'Video not found'));
      expect((await call(owner, 'GET', `/videos/${unknownId}/share-links`)).statusCode).toBe(404);
      const anonymous = await call(null, 'GET', `/videos/${videoId}/share-links`);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
    });
  });

  describe('DELETE /share-links/{id}', () => {
    it('revokes a link: it stops opening, shows revokedAt, and the revocation is recorded', async () => {
      const link = await createLink();
      expect((await open(link.token)).statusCode).toBe(200);
      const response = await call(admin, 'DELETE', `/share-links/${link.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: link.id, revoked: true });

      const revoked = await open(link.token);
      expect(revoked.statusCode).toBe(404);
      expect(revoked.json()).toEqual(errorBody('NOT_FOUND', 'Share link not found'));
      const listed = (await call(owner, 'GET', `/videos/${videoId}/share-links`)).json();
      expect(listed.data.find((item: { id: string }) => item.id === link.id)).toMatchObject({
        revokedAt: isoDate,
        viewCount: 1,
      });

      const again = await call(owner, 'DELETE', `/share-links/${link.id}`);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ id: link.id, revoked: true });
      expect((await activityFor(link.id)).map((event) => [event.action, event.actorId])).toEqual([
        ['share_link.created', owner.id],
        ['share_link.revoked', admin.id],
      ]);
    });

    it('answers 403 to members who did not author the video, 404 to other organizations and unknown ids', async () => {
      const link = await createLink();
      const forbidden = await call(member, 'DELETE', `/share-links/${link.id}`);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      for (const id of [link.id, unknownId, 'nope']) {
        const response = await call(id === link.id ? outsider : owner, 'DELETE', `/share-links/${id}`);
        expect(response.statusCode, id).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND'));
      }
      expect((await call(null, 'DELETE', `/share-links/${link.id}`)).statusCode).toBe(401);
      expect((await open(link.token)).statusCode).toBe(200);
      expect((await storedLink(link.id))?.revokedAt).toBeNull();
    });
  });
});
