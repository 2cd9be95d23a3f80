import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { transcriptSegments, videos } from '../../db/schema/index.ts';
import { errorBody, HOUR, PASSWORD, pathsOf, useShareLinkTestApp } from './test-support.ts';

describe('public share pages', () => {
  const { ctx, team, newVideo, call, createLink, open, verify, storedLink, activityFor } =
    useShareLinkTestApp();
  let owner: SignedUpUser;
  let outsider: SignedUpUser;
  let videoId: string;
  beforeAll(() => {
    ({ owner, outsider, videoId } = team());
  });

  describe('GET /share/{token}', () => {
    it("answers with the video's public fields and transcript, and counts each view", async () => {
      const video = await newVideo({
        title: 'Quarterly review',
        description: 'Numbers',
        recordedAt: new Date('2026-01-05T10:00:00.000Z'),
        videoUrl: 'https://cdn.example.com/q.mp4',
      });
      await ctx()
        .database.db.insert(transcriptSegments)
        .values([
          {
            videoId: video.id,
            organizationId: owner.organizationId,
            index: 1,
            startSeconds: 4,
            endSeconds: 9,
            text: 'Next.',
          },
          {
            videoId: video.id,
            organizationId: owner.organizationId,
            index: 0,
            startSeconds: 0,
            endSeconds: 4,
            speakerLabel: 'Alice',
            text: 'Welcome.',
          },
        ]);
      const link = await createLink({}, video.id);
      const response = await open(link.token);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        video: {
          id: video.id,
          title: 'Quarterly review',
          description: 'Numbers',
          duration: '10:00',
          durationSeconds: 600,
          thumbnailUrl: null,
          videoUrl: 'https://cdn.example.com/q.mp4',
          recordedAt: '2026-01-05T10:00:00.000Z',
          createdAt: video.createdAt.toISOString(),
        },
        transcript: {
          segments: [
            { start: 0, end: 4, speaker: 'Alice', text: 'Welcome.' },
            { start: 4, end: 9, speaker: null, text: 'Next.' },
          ],
        },
        expiresAt: null,
      });
      expect((await open(link.token)).statusCode).toBe(200);
      expect((await storedLink(link.id))?.viewCount).toBe(2);
      // Views of a share page are not activity.
      expect((await activityFor(link.id)).map((event) => event.action)).toEqual(['share_link.created']);
    });

    it('answers transcript null for a video without one, and 404 for unknown tokens and deleted videos', async () => {
      const video = await newVideo();
      const link = await createLink({}, video.id);
      expect((await open(link.token)).json().transcript).toBeNull();
      expect((await open('x'.repeat(43))).statusCode).toBe(404);
      await ctx()
        .database.db.update(videos)
        .set({ isDeleted: true, deletedAt: new Date() })
        .where(eq(videos.id, video.id));
      const deleted = await open(link.token);
      expect(deleted.statusCode).toBe(404);
      expect(deleted.json()).toEqual(errorBody('NOT_FOUND', 'Share link not found'));
    });

    it('stops after maxViews views, even when they arrive at once', async () => {
      const link = await createLink({ maxViews: 2 });
      expect((await open(link.token)).statusCode).toBe(200);
      expect((await open(link.token)).statusCode).toBe(200);
      const third = await open(link.token);
      expect(third.statusCode).toBe(404);
      expect(third.json()).toEqual(errorBody('NOT_FOUND', 'Share link not found'));

      const racing = await createLink({ maxViews: 3 });
      const statuses = await Promise.all(Array.from({ length: 8 }, () => open(racing.token)));
      expect(statuses.filter((response) => response.statusCode === 200)).toHaveLength(3);
      expect(statuses.filter((response) => response.statusCode === 404)).toHaveLength(5);
      expect((await storedLink(racing.id))?.viewCount).toBe(3);
    });

    it('stops at its expiry', async () => {
      const expiresAt = new Date(ctx().clock.now().getTime() + HOUR).toISOString();
      const link = await createLink({ expiresAt, password: PASSWORD });
      const { accessToken } = (await verify(link.token, PASSWORD)).json();
      expect((await open(link.token, { 'x-share-token': accessToken })).json().expiresAt).toBe(expiresAt);
      ctx().clock.advance(HOUR);
      try {
        expect((await open(link.token, { 'x-share-token': accessToken })).statusCode).toBe(404);
        const verifyLate = await verify(link.token, PASSWORD);
        expect(verifyLate.statusCode).toBe(404);
        expect(verifyLate.json()).toEqual(errorBody('NOT_FOUND', 'Share link not found'));
      } finally {
        ctx().clock.reset();
      }
    });

    it('lets only signed-in users of the allowed email domains open a restricted link', async () => {
      const link = await createLink({ allowedEmailDomains: ['example.com'] });
      const anonymous = await open(link.token);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
      const badSession = await open(link.token, { authorization: 'Bearer nope' });
      expect(badSession.statusCode).toBe(401);
      expect(badSession.json()).toEqual(errorBody('INVALID_SESSION', 'Invalid session'));

      const stranger = await signUpUser(ctx().app, { email: `s-${Date.now()}@example.org` });
      const refused = await open(link.token, {}, stranger);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual(errorBody('EMAIL_DOMAIN_NOT_ALLOWED'));
      const refusedVerify = await call(stranger, 'POST', `/share/${link.token}/verify`, { password: 'x' });
      expect(refusedVerify.statusCode).toBe(403);

      // A user of another organization with an allowed domain is exactly who the link is for.
      expect(outsider.email).toMatch(/@example\.com$/);
      expect((await open(link.token, {}, outsider)).statusCode).toBe(200);
      expect((await storedLink(link.id))?.viewCount).toBe(1);
    });
  });

  describe('password links and POST /share/{token}/verify', () => {
    it('requires the password, exchanged for an access token valid one hour', async () => {
      const link = await createLink({ password: PASSWORD });
      const locked = await open(link.token);
      expect(locked.statusCode).toBe(401);
      expect(locked.json()).toEqual({
        success: false,
        error: 'Password required',
        code: 'PASSWORD_REQUIRED',
      });

      const wrong = await verify(link.token, 'not the password');
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toEqual(errorBody('INVALID_PASSWORD', 'Invalid password'));

      const verified = await verify(link.token, PASSWORD);
      expect(verified.statusCode).toBe(201);
      const body = verified.json();
      expect(Object.keys(body).sort()).toEqual(['accessToken', 'expiresAt']);
      const lifetime = new Date(body.expiresAt).getTime() - ctx().clock.now().getTime();
      expect(lifetime).toBeGreaterThan(HOUR - 60_000);
      expect(lifetime).toBeLessThanOrEqual(HOUR);

      const opened = await open(link.token, { 'x-share-token': body.accessToken });
      expect(opened.statusCode).toBe(200);
      expect(opened.json().video.id).toBe(videoId);
      expect(opened.body).not.toContain('argon2');
      expect((await storedLink(link.id))?.viewCount).toBe(1);

      ctx().clock.advance(HOUR);
      try {
        const stale = await open(link.token, { 'x-share-token': body.accessToken });
        expect(stale.statusCode).toBe(401);
        expect(stale.json()).toEqual(errorBody('PASSWORD_REQUIRED', 'Password required'));
      } finally {
        ctx().clock.reset();
      }
    });

    it('refuses forged access tokens and those of another link', async () => {
      const link = await createLink({ password: PASSWORD });
      const other = await createLink({ password: PASSWORD });
      const { accessToken } = (await verify(other.token, PASSWORD)).json();
      const [expiry, signature] = accessToken.split('.');
      const farFuture = `${Number(expiry) + 10 * HOUR}.${signature}`;
      for (const forged of [accessToken, farFuture, 'garbage', '']) {
        const response = await open(link.token, { 'x-share-token': forged });
        expect(response.statusCode, forged).toBe(401);
        expect(response.json()).toEqual(errorBody('PASSWORD_REQUIRED', 'Password required'));
      }
      expect((await open(other.token, { 'x-share-token': farFuture })).statusCode).toBe(401);
      expect((await storedLink(link.id))?.viewCount).toBe(0);
    });

    it('answers NO_PASSWORD for a link without one, 404 for unknown or revoked links, 400 for no password', async () => {
      const open_ = await createLink();
      const noPassword = await verify(open_.token, 'anything');
      expect(noPassword.statusCode).toBe(400);
      expect(noPassword.json()).toEqual(errorBody('NO_PASSWORD', 'This link has no password'));

      expect((await verify('y'.repeat(43), 'anything')).statusCode).toBe(404);
      const revoked = await createLink({ password: PASSWORD });
      await call(owner, 'DELETE', `/share-links/${revoked.id}`);
      expect((await verify(revoked.token, PASSWORD)).statusCode).toBe(404);

      const missing = await call(null, 'POST', `/share/${open_.token}/verify`, {});
      expect(missing.statusCode).toBe(400);
      expect(pathsOf(missing.json())).toEqual(['body.password']);
    });

    it('allows 10 tries per client and link in 15 minutes, then answers 429 with retry-after', async () => {
      const link = await createLink({ password: PASSWORD });
      for (let attempt = 1; attempt <= 10; attempt++) {
        expect((await verify(link.token, `wrong ${attempt}`)).statusCode, `attempt ${attempt}`).toBe(400);
      }
      const limited = await verify(link.token, PASSWORD);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual(
        errorBody('RATE_LIMITED', expect.stringContaining('Rate limit exceeded')),
      );
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);

      const other = await createLink({ password: PASSWORD });
      expect((await verify(other.token, PASSWORD)).statusCode).toBe(201);
    });
  });
});
