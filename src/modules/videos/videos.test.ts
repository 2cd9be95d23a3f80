import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withApiKey } from '../../../test/helpers/factories.ts';
import { videos } from '../../db/schema/index.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';
import { errorPaths, eventsFor, expectVideo, libraryOf, makeVideo, postVideo } from './test-support.ts';

const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

describe('videos: create and read', () => {
  const ctx = useMailingTestApp();
  let crew: Team;
  beforeAll(async () => {
    crew = await team(ctx());
  });

  const read = (id: string, headers: Record<string, string> = {}) =>
    ctx().app.inject({ method: 'GET', url: `/videos/${id}`, headers });

  describe('POST /videos', () => {
    it('creates a video with every field and answers the whole Video', async () => {
      const library = await libraryOf(ctx(), crew.organizationId);
      const body = await postVideo(ctx(), crew.member, {
        title: 'Design review: onboarding',
        duration: '1:02:03',
        organizationId: crew.organizationId,
        description: 'We walked through the new flow.',
        thumbnailUrl: 'https://cdn.example.com/t.png',
        videoUrl: 'https://cdn.example.com/v.mp4',
        aiSummary: 'Decided to ship.',
        isPublic: true,
        recordedAt: '2026-03-02T10:00:00+01:00',
        ...library,
        ignoredExtra: 'extra properties are accepted',
      });
      const video = expectVideo(body, {
        title: 'Design review: onboarding',
        description: 'We walked through the new flow.',
        duration: '1:02:03',
        durationSeconds: 3723,
        thumbnailUrl: 'https://cdn.example.com/t.png',
        videoUrl: 'https://cdn.example.com/v.mp4',
        authorId: crew.member.id,
        organizationId: crew.organizationId,
        ...library,
        transcript: null,
        aiSummary: 'Decided to ship.',
        viewCount: 0,
        isPublic: true,
        isDeleted: false,
        deletedAt: null,
        retentionUntil: null,
        recordedAt: '2026-03-02T09:00:00.000Z',
      });
      expect(video.createdAt).toBe(video.updatedAt);
      expect(body).not.toHaveProperty('ignoredExtra');

      const events = await eventsFor(ctx(), video.id, 'video.created');
      expect(events).toMatchObject([
        {
          organizationId: crew.organizationId,
          actorId: crew.member.id,
          targetType: 'video',
          metadata: { title: 'Design review: onboarding' },
        },
      ]);
      const readBack = await read(video.id, crew.viewer.headers);
      expect(readBack.json()).toEqual(body);
    });

    it('defaults the optional fields to null and false', async () => {
      const body = await postVideo(ctx(), crew.owner, {
        title: 'Standup',
        duration: 'about ten minutes',
        organizationId: crew.organizationId,
      });
      expectVideo(body, {
        description: null,
        durationSeconds: null,
        thumbnailUrl: null,
        videoUrl: null,
        channelId: null,
        collectionId: null,
        seriesId: null,
        transcript: null,
        aiSummary: null,
        isPublic: false,
        recordedAt: null,
      });
    });

    it.each([
      ['754', 754],
      ['754s', 754],
      ['12:34', 754],
      ['1:02:03', 3723],
      ['PT1H2M3S', 3723],
      ['x', null],
    ])('derives durationSeconds from %s', async (duration, seconds) => {
      const body = await makeVideo(ctx(), crew.member, crew.organizationId, { duration });
      expectVideo(body, { duration, durationSeconds: seconds });
    });

    it('appends to the end of a collection', async () => {
      const { collectionId } = await libraryOf(ctx(), crew.organizationId);
      const first = await makeVideo(ctx(), crew.member, crew.organizationId, { collectionId });
      const second = await makeVideo(ctx(), crew.admin, crew.organizationId, { collectionId });
      const positions = await ctx()
        .database.db.select({ id: videos.id, position: videos.collectionPosition })
        .from(videos)
        .where(eq(videos.collectionId, collectionId));
      expect(positions.sort((a, b) => (a.position ?? 0) - (b.position ?? 0))).toEqual([
        { id: first.id, position: 0 },
        { id: second.id, position: 1 },
      ]);
    });

    it('lists every invalid field in details', async () => {
      const body = await postVideo(
        ctx(),
        crew.member,
        {
          title: '  ',
          duration: '',
          organizationId: 'not-a-uuid',
          description: 5,
          channelId: 'nope',
          isPublic: 'yes',
          recordedAt: 'yesterday',
        },
        400,
      );
      expect(body).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
      expect(errorPaths(body)).toEqual([
        'body.channelId',
        'body.description',
        'body.duration',
        'body.isPublic',
        'body.organizationId',
        'body.recordedAt',
        'body.title',
      ]);
      const missing = await postVideo(ctx(), crew.member, {}, 400);
      expect(errorPaths(missing)).toEqual(['body.duration', 'body.organizationId', 'body.title']);
    });

    it('refuses a channel, series or collection of another organization (400)', async () => {
      const theirs = await libraryOf(ctx(), crew.outsider.organizationId);
      const refused = await postVideo(
        ctx(),
        crew.member,
        { title: 'T', duration: '1', organizationId: crew.organizationId, ...theirs },
        400,
      );
      expect(refused).toMatchObject(errorBody('VALIDATION_ERROR'));
      expect(errorPaths(refused)).toEqual(['body.channelId', 'body.collectionId', 'body.seriesId']);
      const unknown = await postVideo(
        ctx(),
        crew.member,
        { title: 'T', duration: '1', organizationId: crew.organizationId, channelId: unknownId },
        400,
      );
      expect(errorPaths(unknown)).toEqual(['body.channelId']);
    });

    it('needs the member role in the organization (403)', async () => {
      const payload = { title: 'T', duration: '1', organizationId: crew.organizationId };
      expect(await postVideo(ctx(), crew.viewer, payload, 403)).toEqual(
        errorBody('INSUFFICIENT_ROLE', 'This requires the member role or higher'),
      );
      expect(await postVideo(ctx(), crew.outsider, payload, 403)).toEqual(
        errorBody('NOT_A_MEMBER', 'You are not a member of this organization'),
      );
      expect(await postVideo(ctx(), crew.outsider, { ...payload, organizationId: unknownId }, 403)).toEqual(
        errorBody('NOT_A_MEMBER', 'You are not a member of this organization'),
      );
    });

    it('answers 401 without or with invalid credentials', async () => {
      const payload = { title: 'T', duration: '1', organizationId: crew.organizationId };
      const none = await ctx().app.inject({ method: 'POST', url: '/videos', payload });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
      const invalid = await ctx().app.inject({
        method: 'POST',
        url: '/videos',
        payload,
        headers: { authorization: 'Bearer nope' },
      });
      expect(invalid.statusCode).toBe(401);
      expect(invalid.json()).toEqual(errorBody('INVALID_SESSION', 'Invalid session'));
    });

    it('accepts bodies up to 25 MiB (transcripts travel in them), 413 beyond', async () => {
      const post = (padding: number) =>
        ctx().app.inject({
          method: 'POST',
          url: '/videos',
          headers: crew.member.headers,
          payload: {
            title: 'Big',
            duration: '1',
            organizationId: crew.organizationId,
            padding: 'p'.repeat(padding),
          },
        });
      const large = await post(2 * 1024 * 1024);
      expect(large.statusCode).toBe(201);
      expectVideo(large.json(), { title: 'Big' });
      const tooLarge = await post(25 * 1024 * 1024);
      expect(tooLarge.statusCode).toBe(413);
      expect(tooLarge.json()).toEqual(errorBody('PAYLOAD_TOO_LARGE', 'Request body is too large'));
    });
  });

  describe('GET /videos/{id}', () => {
    it("lets every member read their organization's videos, private ones too", async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId);
      for (const reader of [crew.owner, crew.admin, crew.member, crew.viewer]) {
        const response = await read(video.id, reader.headers);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual(video);
      }
    });

    it('hides private videos from outsiders and anonymous callers (404)', async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId);
      for (const headers of [crew.outsider.headers, {}]) {
        const response = await read(video.id, headers);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Video not found'));
      }
    });

    it('serves a public video to anyone, without credentials', async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId, { isPublic: true });
      for (const headers of [crew.outsider.headers, {}]) {
        const response = await read(video.id, headers);
        expect(response.statusCode).toBe(200);
        expect(expectVideo(response.json())).toEqual(video);
      }
    });

    it('refuses invalid credentials even for a public video (401)', async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId, { isPublic: true });
      const response = await read(video.id, { authorization: 'Bearer nope' });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(errorBody('INVALID_SESSION', 'Invalid session'));
    });

    // The route reads the video in the credential's own statement (readAlongsideCredential).
    it('reads the same video with an API key and by an upper-case id; a soft-deleted one is a 404', async () => {
      const video = await makeVideo(ctx(), crew.member, crew.organizationId);
      const viewerKey = await withApiKey(ctx(), crew.viewer);
      for (const [id, headers] of [
        [video.id, viewerKey.headers],
        [video.id.toUpperCase(), crew.viewer.headers],
      ] as const) {
        const response = await read(id, headers);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual(video);
      }
      expect((await read(video.id, (await withApiKey(ctx(), crew.outsider)).headers)).statusCode).toBe(404);

      await ctx()
        .database.db.update(videos)
        .set({ isDeleted: true, deletedAt: new Date() })
        .where(eq(videos.id, video.id));
      for (const headers of [crew.member.headers, viewerKey.headers]) {
        const response = await read(video.id, headers);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Video not found'));
      }
    });

    it('answers 404 for unknown and malformed ids', async () => {
      for (const id of [unknownId, 'not-a-uuid', '123']) {
        const response = await read(id, crew.owner.headers);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject(errorBody('NOT_FOUND'));
      }
    });
  });
});
