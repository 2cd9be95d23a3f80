import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { createVideoRow } from '../../../test/helpers/library.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { videos } from '../../db/schema/index.ts';
import { activityFor, type Team, team, unknownId } from '../transcripts/test-support.ts';

const pathsOf = (body: { details: Array<{ path: string }> }) => body.details.map((d) => d.path).sort();
const errorBody = (code: string) => ({ success: false, error: expect.any(String), code });

describe('clips', () => {
  const ctx = useTestApp();
  let t: Team;
  let outsider: SignedUpUser;
  let privateVideoId: string;
  let publicVideoId: string;

  beforeAll(async () => {
    t = await team(ctx());
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    const db = ctx().database.db;
    privateVideoId = (await createVideoRow(db, { organizationId: t.organizationId, authorId: t.owner.id }))
      .id;
    publicVideoId = (
      await createVideoRow(db, { organizationId: t.organizationId, authorId: t.owner.id, isPublic: true })
    ).id;
  });

  const call = requester(ctx);

  async function createClip(user: SignedUpUser, videoId: string, payload: Record<string, unknown> = {}) {
    const response = await call(user, 'POST', `/videos/${videoId}/clips`, {
      title: 'Key decision',
      startTime: 10,
      endTime: 20,
      ...payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  describe('POST /videos/{id}/clips', () => {
    it('creates a clip with exactly the documented fields, records it, and reads it back', async () => {
      const response = await call(t.member, 'POST', `/videos/${privateVideoId}/clips`, {
        title: ' Launch date ',
        description: 'We ship in May',
        startTime: 12.5,
        endTime: 42,
        ignored: true,
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toStrictEqual({
        id: expect.any(String),
        videoId: privateVideoId,
        organizationId: t.organizationId,
        title: 'Launch date',
        description: 'We ship in May',
        startTime: 12.5,
        endTime: 42,
        duration: 29.5,
        transcriptExcerpt: null,
        createdBy: t.member.id,
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      const readBack = await call(t.viewer, 'GET', `/clips/${body.id}`);
      expect(readBack.statusCode).toBe(200);
      expect(readBack.json()).toStrictEqual(body);
      const events = await activityFor(ctx(), 'clip.created', body.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ organizationId: t.organizationId, actorId: t.member.id });
    });

    it('accepts a 1000-character description and rejects 1001 with every invalid field in details', async () => {
      const long = await createClip(t.member, privateVideoId, { description: 'd'.repeat(1000) });
      expect(long.description).toHaveLength(1000);
      const invalid = await call(t.member, 'POST', `/videos/${privateVideoId}/clips`, {
        title: '',
        description: 'd'.repeat(1001),
        startTime: -1,
        endTime: 'soon',
      });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json()).toMatchObject(errorBody('VALIDATION_ERROR'));
      expect(pathsOf(invalid.json())).toEqual([
        'body.description',
        'body.endTime',
        'body.startTime',
        'body.title',
      ]);
      const missing = await call(t.member, 'POST', `/videos/${privateVideoId}/clips`, {});
      expect(pathsOf(missing.json())).toEqual(['body.endTime', 'body.startTime', 'body.title']);
    });

    it('requires startTime before endTime and endTime within the known duration', async () => {
      for (const [startTime, endTime] of [
        [30, 30],
        [40, 30],
      ]) {
        const response = await call(t.member, 'POST', `/videos/${privateVideoId}/clips`, {
          title: 'Backwards',
          startTime,
          endTime,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().details).toEqual([
          { path: 'body.endTime', message: `must be greater than startTime (${startTime})` },
        ]);
      }
      const beyond = await call(t.member, 'POST', `/videos/${privateVideoId}/clips`, {
        title: 'Too long',
        startTime: 590,
        endTime: 600.5,
      });
      expect(beyond.statusCode).toBe(400);
      expect(beyond.json().details).toEqual([
        { path: 'body.endTime', message: "must be at most the video's duration (600 seconds)" },
      ]);
      expect((await createClip(t.member, privateVideoId, { startTime: 590, endTime: 600 })).duration).toBe(
        10,
      );

      const unknownLength = await createVideoRow(ctx().database.db, {
        organizationId: t.organizationId,
        authorId: t.owner.id,
        duration: 'a while',
        durationSeconds: null,
      });
      const late = await createClip(t.member, unknownLength.id, { startTime: 5000, endTime: 7200 });
      expect(late.endTime).toBe(7200);
    });

    it('answers 401 without or with invalid credentials, before validation', async () => {
      const anonymous = await call(null, 'POST', `/videos/${privateVideoId}/clips`, {});
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject(errorBody('UNAUTHORIZED'));
      const invalid = await ctx().app.inject({
        method: 'POST',
        url: `/videos/${privateVideoId}/clips`,
        headers: { authorization: 'Bearer not-a-session' },
        payload: {},
      });
      expect(invalid.statusCode).toBe(401);
      expect(invalid.json()).toMatchObject(errorBody('INVALID_SESSION'));
    });

    it('refuses viewers with 403 and hides the video from outsiders, even a public one', async () => {
      const payload = { title: 'Nope', startTime: 1, endTime: 2 };
      const viewer = await call(t.viewer, 'POST', `/videos/${privateVideoId}/clips`, payload);
      expect(viewer.statusCode).toBe(403);
      expect(viewer.json()).toMatchObject(errorBody('INSUFFICIENT_ROLE'));
      for (const videoId of [privateVideoId, publicVideoId, unknownId]) {
        const response = await call(outsider, 'POST', `/videos/${videoId}/clips`, payload);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject(errorBody('NOT_FOUND'));
      }
      expect((await call(t.member, 'POST', '/videos/not-a-uuid/clips', payload)).statusCode).toBe(404);
    });
  });

  describe('GET /videos/{id}/clips', () => {
    it('lists the clips of a video by start time, paginated', async () => {
      const video = await createVideoRow(ctx().database.db, {
        organizationId: t.organizationId,
        authorId: t.owner.id,
      });
      const late = await createClip(t.member, video.id, { title: 'Late', startTime: 300, endTime: 310 });
      const early = await createClip(t.admin, video.id, { title: 'Early', startTime: 5, endTime: 15 });
      const middle = await createClip(t.member, video.id, { title: 'Middle', startTime: 100, endTime: 110 });
      const all = await call(t.viewer, 'GET', `/videos/${video.id}/clips`);
      expect(all.statusCode).toBe(200);
      expect(all.json()).toStrictEqual({
        data: [early, middle, late],
        pagination: { page: 1, limit: 20, total: 3, totalPages: 1 },
      });
      const second = await call(t.member, 'GET', `/videos/${video.id}/clips?page=2&limit=2`);
      expect(second.json()).toStrictEqual({
        data: [late],
        pagination: { page: 2, limit: 2, total: 3, totalPages: 2 },
      });
      const invalid = await call(t.member, 'GET', `/videos/${video.id}/clips?page=0&limit=500`);
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual(['querystring.limit', 'querystring.page']);
    });

    it("shows a public video's clips to anyone and a private video's only to its members", async () => {
      const publicClip = await createClip(t.member, publicVideoId);
      for (const caller of [null, outsider]) {
        const response = await call(caller, 'GET', `/videos/${publicVideoId}/clips`);
        expect(response.statusCode).toBe(200);
        expect(response.json().data).toContainEqual(publicClip);
      }
      for (const caller of [null, outsider]) {
        const response = await call(caller, 'GET', `/videos/${privateVideoId}/clips`);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject(errorBody('NOT_FOUND'));
      }
      expect((await call(t.member, 'GET', `/videos/${unknownId}/clips`)).statusCode).toBe(404);
    });

    it('answers 401 to credentials that are sent but invalid', async () => {
      const response = await ctx().app.inject({
        method: 'GET',
        url: `/videos/${publicVideoId}/clips`,
        headers: { authorization: 'Bearer not-a-session' },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject(errorBody('INVALID_SESSION'));
    });
  });

  describe('GET /clips/{id}', () => {
    it('answers a clip of a public video to anyone, even with invalid credentials', async () => {
      const clip = await createClip(t.member, publicVideoId);
      for (const headers of [{}, outsider.headers, { authorization: 'Bearer not-a-session' }]) {
        const response = await ctx().app.inject({ method: 'GET', url: `/clips/${clip.id}`, headers });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toStrictEqual(clip);
      }
    });

    it('answers a clip of a private video to members only, 404 to everyone else', async () => {
      const clip = await createClip(t.member, privateVideoId);
      for (const member of [t.viewer, t.owner]) {
        const response = await call(member, 'GET', `/clips/${clip.id}`);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toStrictEqual(clip);
      }
      for (const headers of [{}, outsider.headers, { authorization: 'Bearer not-a-session' }]) {
        const response = await ctx().app.inject({ method: 'GET', url: `/clips/${clip.id}`, headers });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ success: false, error: 'Clip not found', code: 'NOT_FOUND' });
      }
      expect((await call(t.member, 'GET', `/clips/${unknownId}`)).json()).toMatchObject(
        errorBody('NOT_FOUND'),
      );
      expect((await call(t.member, 'GET', '/clips/42')).statusCode).toBe(404);
    });
  });

  describe('clips of a deleted video', () => {
    it('are not found on any route, public or not', async () => {
      const video = await createVideoRow(ctx().database.db, {
        organizationId: t.organizationId,
        authorId: t.owner.id,
        isPublic: true,
      });
      const clip = await createClip(t.member, video.id);
      await ctx().database.db.update(videos).set({ isDeleted: true }).where(eq(videos.id, video.id));
      const attempts = [
        call(null, 'GET', `/clips/${clip.id}`),
        call(t.owner, 'GET', `/clips/${clip.id}`),
        call(t.owner, 'GET', `/videos/${video.id}/clips`),
        call(t.member, 'POST', `/videos/${video.id}/clips`, { title: 'x', startTime: 1, endTime: 2 }),
        call(t.member, 'PATCH', `/clips/${clip.id}`, { title: 'Renamed' }),
        call(t.owner, 'DELETE', `/clips/${clip.id}`),
      ];
      for (const response of await Promise.all(attempts)) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject(errorBody('NOT_FOUND'));
      }
      expect(await activityFor(ctx(), 'clip.deleted', clip.id)).toHaveLength(0);
    });
  });
});
