import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { videos } from '../../db/schema/index.ts';
import {
  addVideos,
  createCollection,
  errorBody,
  eventsFor,
  insertVideo,
  insertVideos,
  isoDate,
  requester,
  type Team,
  team,
  unknownId,
} from './test-support.ts';

const pathsOf = (body: { details: Array<{ path: string }> }) =>
  body.details.map((detail) => detail.path).sort();

describe('collections', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let crew: Team;

  beforeAll(async () => {
    crew = await team(ctx());
  });

  /** The spec's Collection field table plus createdBy; `videos` only on the single read. */
  const collectionBody = (overrides: Record<string, unknown>) => ({
    id: expect.any(String),
    name: expect.any(String),
    description: null,
    thumbnailUrl: null,
    organizationId: crew.organizationId,
    type: 'folder',
    isPublic: false,
    videoCount: 0,
    createdBy: crew.member.id,
    createdAt: isoDate,
    updatedAt: isoDate,
    ...overrides,
  });

  describe('POST /collections', () => {
    it('creates a folder by default, for a member, and records the event', async () => {
      const response = await request('POST', '/collections', crew.member, {
        name: '  Onboarding ',
        organizationId: crew.organizationId,
        somethingExtra: 1,
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toEqual(collectionBody({ name: 'Onboarding' }));

      const readBack = await request('GET', `/collections/${body.id}`, crew.viewer);
      expect(readBack.statusCode).toBe(200);
      expect(readBack.json()).toEqual({ ...body, videos: [] });
      const [event] = await eventsFor(ctx(), body.id, 'collection.created');
      expect(event).toMatchObject({
        organizationId: crew.organizationId,
        actorId: crew.member.id,
        targetType: 'collection',
        metadata: { name: 'Onboarding', type: 'folder' },
      });
    });

    it('takes every field, and null type and isPublic mean folder and false', async () => {
      const full = await request('POST', '/collections', crew.admin, {
        name: 'Architecture',
        organizationId: crew.organizationId,
        description: 'Design reviews, in order',
        thumbnailUrl: 'https://cdn.example.com/arch.png',
        type: 'playlist',
        isPublic: true,
      });
      expect(full.statusCode).toBe(201);
      expect(full.json()).toEqual(
        collectionBody({
          name: 'Architecture',
          description: 'Design reviews, in order',
          thumbnailUrl: 'https://cdn.example.com/arch.png',
          type: 'playlist',
          isPublic: true,
          createdBy: crew.admin.id,
        }),
      );
      const nulls = await request('POST', '/collections', crew.owner, {
        name: 'Misc',
        organizationId: crew.organizationId,
        description: null,
        thumbnailUrl: null,
        type: null,
        isPublic: null,
      });
      expect(nulls.statusCode).toBe(201);
      expect(nulls.json()).toEqual(collectionBody({ name: 'Misc', createdBy: crew.owner.id }));
    });

    it('lists every invalid field', async () => {
      const response = await request('POST', '/collections', crew.member, {
        name: '   ',
        organizationId: 'not-a-uuid',
        type: 'album',
        isPublic: 'yes',
        description: 42,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR'));
      expect(pathsOf(response.json())).toEqual([
        'body.description',
        'body.isPublic',
        'body.name',
        'body.organizationId',
        'body.type',
      ]);
      const missing = await request('POST', '/collections', crew.member, {});
      expect(missing.statusCode).toBe(400);
      expect(pathsOf(missing.json())).toEqual(['body.name', 'body.organizationId']);
    });

    it('answers 401 without valid credentials', async () => {
      const payload = { name: 'X', organizationId: crew.organizationId };
      const none = await request('POST', '/collections', null, payload);
      expect(none.statusCode).toBe(401);
      expect(none.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
      const bad = await request(
        'POST',
        '/collections',
        { headers: { authorization: 'Bearer nope' } },
        payload,
      );
      expect(bad.statusCode).toBe(401);
      expect(bad.json()).toEqual(errorBody('INVALID_SESSION', 'Invalid session'));
    });

    it('refuses outsiders, unknown organizations and viewers with 403', async () => {
      for (const organizationId of [crew.organizationId, unknownId]) {
        const response = await request('POST', '/collections', crew.outsider, { name: 'X', organizationId });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('NOT_A_MEMBER'));
      }
      const viewer = await request('POST', '/collections', crew.viewer, {
        name: 'X',
        organizationId: crew.organizationId,
      });
      expect(viewer.statusCode).toBe(403);
      expect(viewer.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
    });
  });

  describe('GET /collections', () => {
    it("lists the caller's collections newest first with live video counts, filtered and paginated", async () => {
      const user = await signUpUser(ctx().app);
      const folder = await createCollection(ctx, user, {
        name: 'Folder',
        organizationId: user.organizationId,
      });
      const playlist = await createCollection(ctx, user, {
        name: 'Playlist',
        organizationId: user.organizationId,
        type: 'playlist',
      });
      const [kept, gone] = await insertVideos(ctx(), 2, user.organizationId, user.id);
      await addVideos(ctx, user, playlist.id, [kept?.id as string, gone?.id as string]);
      await ctx()
        .database.db.update(videos)
        .set({ isDeleted: true })
        .where(eq(videos.id, gone?.id as string));

      const all = await request('GET', '/collections', user);
      expect(all.statusCode).toBe(200);
      expect(all.json()).toEqual({
        data: [
          { ...playlist, videoCount: 1, updatedAt: isoDate },
          { ...folder, videoCount: 0 },
        ],
        pagination: { page: 1, limit: 20, total: 2, totalPages: 1 },
      });
      expect(Object.keys(all.json().data[0]).sort()).toEqual(
        [
          'createdAt',
          'createdBy',
          'description',
          'id',
          'isPublic',
          'name',
          'organizationId',
          'thumbnailUrl',
          'type',
          'updatedAt',
          'videoCount',
        ].sort(),
      );

      const playlists = await request('GET', '/collections?type=playlist', user);
      expect(playlists.json().data.map((row: { id: string }) => row.id)).toEqual([playlist.id]);
      expect(playlists.json().pagination.total).toBe(1);
      const secondPage = await request('GET', '/collections?limit=1&page=2', user);
      expect(secondPage.json()).toEqual({
        data: [{ ...folder, videoCount: 0 }],
        pagination: { page: 2, limit: 1, total: 2, totalPages: 2 },
      });
      const named = await request(
        'GET',
        `/collections?organizationId=${user.organizationId}&type=folder`,
        user,
      );
      expect(named.json().data.map((row: { id: string }) => row.id)).toEqual([folder.id]);
    });

    it('covers every organization of the caller and nothing of others', async () => {
      const mine = await createCollection(ctx, crew.member, {
        name: 'Mine',
        organizationId: crew.organizationId,
      });
      const theirs = await createCollection(ctx, crew.outsider, {
        name: 'Theirs',
        organizationId: crew.outsider.organizationId,
      });
      const member = await request('GET', '/collections?limit=100', crew.member);
      const ids = member.json().data.map((row: { id: string }) => row.id);
      expect(ids).toContain(mine.id);
      expect(ids).not.toContain(theirs.id);
      const outsider = await request('GET', '/collections', crew.outsider);
      expect(outsider.json().data.map((row: { id: string }) => row.id)).toEqual([theirs.id]);
    });

    it('answers 403 for an organization the caller is not in', async () => {
      const response = await request(
        'GET',
        `/collections?organizationId=${crew.organizationId}`,
        crew.outsider,
      );
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(errorBody('NOT_A_MEMBER'));
    });

    it('answers 400 for a bad type, organizationId or page', async () => {
      const response = await request('GET', '/collections?type=album&organizationId=x&limit=0', crew.member);
      expect(response.statusCode).toBe(400);
      expect(pathsOf(response.json())).toEqual([
        'querystring.limit',
        'querystring.organizationId',
        'querystring.type',
      ]);
    });

    it('answers 401 without valid credentials', async () => {
      expect((await request('GET', '/collections', null)).statusCode).toBe(401);
      const bad = await request('GET', '/collections', { headers: { authorization: 'Bearer nope' } });
      expect(bad.statusCode).toBe(401);
    });
  });

  describe('GET /collections/{id}', () => {
    it('returns the collection with its non-deleted videos in order, to any member', async () => {
      const collection = await createCollection(ctx, crew.member, {
        name: 'Playlist',
        organizationId: crew.organizationId,
        type: 'playlist',
      });
      const [first, second, third] = await insertVideos(ctx(), 3, crew.organizationId, crew.member.id);
      await addVideos(ctx, crew.member, collection.id, [third?.id, first?.id, second?.id] as string[]);
      await ctx()
        .database.db.update(videos)
        .set({ isDeleted: true })
        .where(eq(videos.id, first?.id as string));

      const response = await request('GET', `/collections/${collection.id}`, crew.viewer);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toEqual({
        ...collection,
        videoCount: 2,
        updatedAt: isoDate,
        videos: [expect.objectContaining({ id: third?.id }), expect.objectContaining({ id: second?.id })],
      });
      expect(body.videos[0]).toEqual({
        id: third?.id,
        title: 'Meeting 3',
        description: null,
        duration: '60',
        durationSeconds: 60,
        thumbnailUrl: null,
        videoUrl: null,
        authorId: crew.member.id,
        organizationId: crew.organizationId,
        channelId: null,
        collectionId: collection.id,
        seriesId: null,
        transcript: null,
        transcriptStatus: 'none',
        transcriptError: null,
        aiSummary: null,
        viewCount: 0,
        isPublic: false,
        isDeleted: false,
        deletedAt: null,
        retentionUntil: null,
        recordedAt: null,
        createdAt: isoDate,
        updatedAt: isoDate,
      });
    });

    it("answers 404 for another organization's, unknown and malformed ids, 401 without credentials", async () => {
      const collection = await createCollection(ctx, crew.member, {
        name: 'Private',
        organizationId: crew.organizationId,
      });
      for (const [user, id] of [
        [crew.outsider, collection.id],
        [crew.member, unknownId],
        [crew.member, 'not-a-uuid'],
      ] as const) {
        const response = await request('GET', `/collections/${id}`, user);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject(errorBody('NOT_FOUND'));
      }
      expect((await request('GET', `/collections/${collection.id}`, crew.outsider)).json().error).toBe(
        'Collection not found',
      );
      expect((await request('GET', `/collections/${collection.id}`, null)).statusCode).toBe(401);
    });
  });

  it('embeds a video with its collection after it is added (videoCount follows)', async () => {
    const collection = await createCollection(ctx, crew.member, {
      name: 'One',
      organizationId: crew.organizationId,
    });
    const video = await insertVideo(ctx(), { organizationId: crew.organizationId, authorId: crew.member.id });
    await addVideos(ctx, crew.member, collection.id, [video.id]);
    const listed = await request(
      'GET',
      `/collections?organizationId=${crew.organizationId}&limit=100`,
      crew.viewer,
    );
    const row = listed.json().data.find((item: { id: string }) => item.id === collection.id);
    expect(row.videoCount).toBe(1);
  });
});
