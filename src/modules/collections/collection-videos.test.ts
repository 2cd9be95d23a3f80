import { and, asc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { memberships, videos } from '../../db/schema/index.ts';
import {
  addVideos,
  createCollection,
  errorBody,
  eventsFor,
  insertVideo,
  insertVideos,
  requester,
  type Team,
  team,
  unknownId,
} from './test-support.ts';

const idsOf = (body: { videos: Array<{ id: string }> }) => body.videos.map((video) => video.id);

describe('videos in collections', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let crew: Team;

  beforeAll(async () => {
    crew = await team(ctx());
  });

  const newPlaylist = (name = 'Playlist') =>
    createCollection(ctx, crew.member, { name, organizationId: crew.organizationId, type: 'playlist' });
  const newVideos = async (count: number) =>
    (await insertVideos(ctx(), count, crew.organizationId, crew.member.id)).map((video) => video.id);

  /** What the database holds: [videoId, position] in playlist order, deleted videos included. */
  async function positions(collectionId: string) {
    const rows = await ctx()
      .database.db.select({ id: videos.id, position: videos.collectionPosition })
      .from(videos)
      .where(eq(videos.collectionId, collectionId))
      .orderBy(asc(videos.collectionPosition));
    return rows.map((row) => [row.id, row.position]);
  }

  describe('POST /collections/{id}/videos', () => {
    it('appends by default, inserts at a position, and answers the collection with its videos', async () => {
      const playlist = await newPlaylist();
      const [a, b, c, d] = (await newVideos(4)) as [string, string, string, string];
      const first = await request('POST', `/collections/${playlist.id}/videos`, crew.member, { videoId: a });
      expect(first.statusCode).toBe(201);
      expect(first.json()).toEqual({
        ...playlist,
        videoCount: 1,
        updatedAt: expect.any(String),
        videos: [expect.objectContaining({ id: a, collectionId: playlist.id })],
      });
      await addVideos(ctx, crew.member, playlist.id, [b]);
      const atStart = await request('POST', `/collections/${playlist.id}/videos`, crew.admin, {
        videoId: c,
        position: 0,
      });
      expect(atStart.statusCode).toBe(201);
      expect(idsOf(atStart.json())).toEqual([c, a, b]);
      const middle = await request('POST', `/collections/${playlist.id}/videos`, crew.member, {
        videoId: d,
        position: 2,
      });
      expect(idsOf(middle.json())).toEqual([c, a, d, b]);
      expect(await positions(playlist.id)).toEqual([
        [c, 0],
        [a, 1],
        [d, 2],
        [b, 3],
      ]);
      const [event] = await eventsFor(ctx(), playlist.id, 'collection.video_added').then((events) =>
        events.filter((item) => item.metadata.videoId === d),
      );
      expect(event).toMatchObject({
        actorId: crew.member.id,
        metadata: { videoId: d, position: 2, fromCollectionId: null },
      });
    });

    it('moves a video within the collection and out of another one, keeping both dense', async () => {
      const source = await newPlaylist('Source');
      const target = await newPlaylist('Target');
      const [a, b, c, x] = (await newVideos(4)) as [string, string, string, string];
      await addVideos(ctx, crew.member, source.id, [a, b, c]);
      await addVideos(ctx, crew.member, target.id, [x]);

      const moved = await request('POST', `/collections/${target.id}/videos`, crew.member, {
        videoId: b,
        position: 0,
      });
      expect(moved.statusCode).toBe(201);
      expect(idsOf(moved.json())).toEqual([b, x]);
      expect(await positions(source.id)).toEqual([
        [a, 0],
        [c, 1],
      ]);
      const sourceRead = await request('GET', `/collections/${source.id}`, crew.member);
      expect(sourceRead.json()).toMatchObject({ videoCount: 2 });
      expect(idsOf(sourceRead.json())).toEqual([a, c]);

      const within = await request('POST', `/collections/${source.id}/videos`, crew.member, {
        videoId: c,
        position: 0,
      });
      expect(idsOf(within.json())).toEqual([c, a]);
      const [event] = (await eventsFor(ctx(), target.id, 'collection.video_added')).filter(
        (item) => item.metadata.videoId === b,
      );
      expect(event?.metadata).toEqual({ videoId: b, position: 0, fromCollectionId: source.id });
    });

    it('counts positions among visible videos; deleted ones keep their place', async () => {
      const playlist = await newPlaylist();
      const [a, hidden, b, c] = (await newVideos(4)) as [string, string, string, string];
      await addVideos(ctx, crew.member, playlist.id, [a, hidden, b]);
      await ctx().database.db.update(videos).set({ isDeleted: true }).where(eq(videos.id, hidden));
      const response = await request('POST', `/collections/${playlist.id}/videos`, crew.member, {
        videoId: c,
        position: 1,
      });
      expect(idsOf(response.json())).toEqual([a, c, b]);
      expect(await positions(playlist.id)).toEqual([
        [a, 0],
        [hidden, 1],
        [c, 2],
        [b, 3],
      ]);
      const tooFar = await request('POST', `/collections/${playlist.id}/videos`, crew.member, {
        videoId: a,
        position: 4,
      });
      expect(tooFar.statusCode).toBe(400);
      expect(tooFar.json()).toEqual({
        ...errorBody('INVALID_POSITION'),
        details: [{ path: 'body.position', message: 'must be between 0 and 2' }],
      });
    });

    it('answers 400 for invalid bodies and for a video of another organization of the caller', async () => {
      const playlist = await newPlaylist();
      const invalid = await request('POST', `/collections/${playlist.id}/videos`, crew.member, {
        videoId: 'nope',
        position: -1,
      });
      expect(invalid.statusCode).toBe(400);
      expect(
        invalid
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['body.position', 'body.videoId']);
      const fraction = await request('POST', `/collections/${playlist.id}/videos`, crew.member, {
        videoId: unknownId,
        position: 1.5,
      });
      expect(fraction.json().details).toEqual([{ path: 'body.position', message: 'must be a whole number' }]);

      await ctx()
        .database.db.insert(memberships)
        .values({ organizationId: crew.outsider.organizationId, userId: crew.member.id, role: 'member' });
      const elsewhere = await insertVideo(ctx(), {
        organizationId: crew.outsider.organizationId,
        authorId: crew.member.id,
      });
      const response = await request('POST', `/collections/${playlist.id}/videos`, crew.member, {
        videoId: elsewhere.id,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(errorBody('VIDEO_OTHER_ORGANIZATION'));
      await ctx()
        .database.db.delete(memberships)
        .where(
          and(
            eq(memberships.organizationId, crew.outsider.organizationId),
            eq(memberships.userId, crew.member.id),
          ),
        );
    });

    it('answers 404 for videos the caller cannot see, unknown or deleted, and for outsiders', async () => {
      const playlist = await newPlaylist();
      const foreign = await insertVideo(ctx(), {
        organizationId: crew.outsider.organizationId,
        authorId: crew.outsider.id,
        isPublic: true,
      });
      const deleted = await insertVideo(ctx(), {
        organizationId: crew.organizationId,
        authorId: crew.member.id,
        isDeleted: true,
      });
      for (const videoId of [foreign.id, deleted.id, unknownId]) {
        const response = await request('POST', `/collections/${playlist.id}/videos`, crew.member, {
          videoId,
        });
        expect(response.statusCode, response.body).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Video not found'));
      }
      const [own] = (await newVideos(1)) as [string];
      for (const url of [`/collections/${playlist.id}/videos`, `/collections/${unknownId}/videos`]) {
        const response = await request('POST', url, crew.outsider, { videoId: own });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Collection not found'));
      }
      expect((await request('GET', `/collections/${playlist.id}`, crew.member)).json().videos).toEqual([]);
    });

    it('refuses a member who neither created the collection nor may change the video (403)', async () => {
      const ownersPlaylist = await createCollection(ctx, crew.owner, {
        name: 'Owner picks',
        organizationId: crew.organizationId,
        type: 'playlist',
      });
      const [ownersVideo] = await insertVideos(ctx(), 1, crew.organizationId, crew.owner.id);
      await addVideos(ctx, crew.owner, ownersPlaylist.id, [ownersVideo?.id as string]);
      const [membersVideo] = (await newVideos(1)) as [string];
      const into = await request('POST', `/collections/${ownersPlaylist.id}/videos`, crew.member, {
        videoId: membersVideo,
      });
      expect(into.statusCode).toBe(403);
      expect(into.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      const reorder = await request('PUT', `/collections/${ownersPlaylist.id}/videos`, crew.member, {
        videoIds: [ownersVideo?.id],
      });
      expect(reorder.statusCode).toBe(403);
      const out = await request(
        'DELETE',
        `/collections/${ownersPlaylist.id}/videos/${ownersVideo?.id}`,
        crew.member,
      );
      expect(out.statusCode).toBe(403);
      // Their own playlist cannot take the owner's video either: that would move it.
      const own = await newPlaylist();
      const moved = await request('POST', `/collections/${own.id}/videos`, crew.member, {
        videoId: ownersVideo?.id,
      });
      expect(moved.statusCode).toBe(403);
      expect(await positions(ownersPlaylist.id)).toEqual([[ownersVideo?.id, 0]]);
      expect(await positions(own.id)).toEqual([]);
      // An admin changes anyone's collection.
      const byAdmin = await request(
        'DELETE',
        `/collections/${ownersPlaylist.id}/videos/${ownersVideo?.id}`,
        crew.admin,
      );
      expect(byAdmin.statusCode).toBe(200);
    });

    it('refuses viewers with 403 and callers without credentials with 401', async () => {
      const playlist = await newPlaylist();
      const [video] = (await newVideos(1)) as [string];
      const viewer = await request('POST', `/collections/${playlist.id}/videos`, crew.viewer, {
        videoId: video,
      });
      expect(viewer.statusCode).toBe(403);
      expect(viewer.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      expect(
        (await request('POST', `/collections/${playlist.id}/videos`, null, { videoId: video })).statusCode,
      ).toBe(401);
      expect(await positions(playlist.id)).toEqual([]);
    });
  });

  describe('DELETE /collections/{id}/videos/{videoId}', () => {
    it('takes the video out, keeps the rest dense and the video itself', async () => {
      const playlist = await newPlaylist();
      const [a, b, c] = (await newVideos(3)) as [string, string, string];
      await addVideos(ctx, crew.member, playlist.id, [a, b, c]);
      const response = await request('DELETE', `/collections/${playlist.id}/videos/${b}`, crew.member);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: playlist.id, videoCount: 2 });
      expect(idsOf(response.json())).toEqual([a, c]);
      expect(await positions(playlist.id)).toEqual([
        [a, 0],
        [c, 1],
      ]);
      const [row] = await ctx().database.db.select().from(videos).where(eq(videos.id, b));
      expect(row).toMatchObject({ collectionId: null, collectionPosition: null, isDeleted: false });
      expect(await eventsFor(ctx(), playlist.id, 'collection.video_removed')).toMatchObject([
        { actorId: crew.member.id, metadata: { videoId: b } },
      ]);
    });

    it('answers 404 for a video not in it, 403 for viewers, 404 for outsiders, 401 without credentials', async () => {
      const playlist = await newPlaylist();
      const [inside, outside] = (await newVideos(2)) as [string, string];
      await addVideos(ctx, crew.member, playlist.id, [inside]);
      const notIn = await request('DELETE', `/collections/${playlist.id}/videos/${outside}`, crew.member);
      expect(notIn.statusCode).toBe(404);
      expect(notIn.json()).toEqual(errorBody('VIDEO_NOT_IN_COLLECTION'));
      const malformed = await request('DELETE', `/collections/${playlist.id}/videos/nope`, crew.member);
      expect(malformed.statusCode).toBe(404);
      const viewer = await request('DELETE', `/collections/${playlist.id}/videos/${inside}`, crew.viewer);
      expect(viewer.statusCode).toBe(403);
      expect(viewer.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      const outsider = await request('DELETE', `/collections/${playlist.id}/videos/${inside}`, crew.outsider);
      expect(outsider.statusCode).toBe(404);
      expect(outsider.json()).toEqual(errorBody('NOT_FOUND', 'Collection not found'));
      expect((await request('DELETE', `/collections/${playlist.id}/videos/${inside}`, null)).statusCode).toBe(
        401,
      );
      expect(await positions(playlist.id)).toEqual([[inside, 0]]);
    });
  });

  describe('PUT /collections/{id}/videos', () => {
    it('reorders the videos, deleted ones staying after the visible', async () => {
      const playlist = await newPlaylist();
      const [a, b, c, hidden] = (await newVideos(4)) as [string, string, string, string];
      await addVideos(ctx, crew.member, playlist.id, [a, hidden, b, c]);
      await ctx().database.db.update(videos).set({ isDeleted: true }).where(eq(videos.id, hidden));
      const response = await request('PUT', `/collections/${playlist.id}/videos`, crew.member, {
        videoIds: [c, a, b],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ id: playlist.id, videoCount: 3 });
      expect(idsOf(response.json())).toEqual([c, a, b]);
      expect(await positions(playlist.id)).toEqual([
        [c, 0],
        [a, 1],
        [b, 2],
        [hidden, 3],
      ]);
      expect(idsOf((await request('GET', `/collections/${playlist.id}`, crew.viewer)).json())).toEqual([
        c,
        a,
        b,
      ]);
      expect(await eventsFor(ctx(), playlist.id, 'collection.videos_reordered')).toMatchObject([
        { actorId: crew.member.id, metadata: { videoIds: [c, a, b] } },
      ]);
    });

    it('refuses a list that is not exactly the current set', async () => {
      const playlist = await newPlaylist();
      const [a, b, stranger] = (await newVideos(3)) as [string, string, string];
      await addVideos(ctx, crew.member, playlist.id, [a, b]);
      const cases: Array<[string[], string[]]> = [
        [[a], ['leaves out a video of the collection']],
        [[a, a, b], ['lists a video more than once']],
        [[a, b, stranger], ['lists a video that is not in the collection']],
        [
          [a, stranger],
          ['lists a video that is not in the collection', 'leaves out a video of the collection'],
        ],
      ];
      for (const [videoIds, messages] of cases) {
        const response = await request('PUT', `/collections/${playlist.id}/videos`, crew.member, {
          videoIds,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({
          ...errorBody('INVALID_ORDER', 'videoIds must list every video of the collection once'),
          details: messages.map((message) => ({ path: 'body.videoIds', message })),
        });
      }
      const malformed = await request('PUT', `/collections/${playlist.id}/videos`, crew.member, {
        videoIds: ['x'],
      });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().details).toEqual([{ path: 'body.videoIds.0', message: 'must be a UUID' }]);
      const missing = await request('PUT', `/collections/${playlist.id}/videos`, crew.member, {});
      expect(missing.json().details.map((detail: { path: string }) => detail.path)).toEqual([
        'body.videoIds',
      ]);
      expect(await positions(playlist.id)).toEqual([
        [a, 0],
        [b, 1],
      ]);
    });

    it('refuses viewers (403), outsiders and unknown ids (404), callers without credentials (401)', async () => {
      const playlist = await newPlaylist();
      const [a] = (await newVideos(1)) as [string];
      await addVideos(ctx, crew.member, playlist.id, [a]);
      const viewer = await request('PUT', `/collections/${playlist.id}/videos`, crew.viewer, {
        videoIds: [a],
      });
      expect(viewer.statusCode).toBe(403);
      for (const [user, id] of [
        [crew.outsider, playlist.id],
        [crew.member, unknownId],
      ] as const) {
        const response = await request('PUT', `/collections/${id}/videos`, user, { videoIds: [a] });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Collection not found'));
      }
      expect(
        (await request('PUT', `/collections/${playlist.id}/videos`, null, { videoIds: [a] })).statusCode,
      ).toBe(401);
    });
  });
});
