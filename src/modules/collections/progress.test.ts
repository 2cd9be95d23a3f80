import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { playlistCompletions, videos } from '../../db/schema/index.ts';
import {
  addVideos,
  createCollection,
  errorBody,
  eventsFor,
  insertVideos,
  isoDate,
  requester,
  type Team,
  team,
  unknownId,
} from './test-support.ts';

describe('playlist progress', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let crew: Team;

  beforeAll(async () => {
    crew = await team(ctx());
  });

  /** A playlist of `count` videos, in the order returned. */
  async function playlistOf(count: number) {
    const playlist = await createCollection(ctx, crew.member, {
      name: 'Onboarding',
      organizationId: crew.organizationId,
      type: 'playlist',
    });
    const ids = (await insertVideos(ctx(), count, crew.organizationId, crew.member.id)).map(
      (video) => video.id,
    );
    await addVideos(ctx, crew.member, playlist.id, ids);
    return { id: playlist.id, ids };
  }

  const progressUrl = (collectionId: string) => `/collections/${collectionId}/progress`;
  const read = (collectionId: string, user = crew.viewer) => request('GET', progressUrl(collectionId), user);
  const post = (collectionId: string, payload: Record<string, unknown>, user = crew.viewer) =>
    request('POST', progressUrl(collectionId), user, payload);

  const progressBody = (collectionId: string, overrides: Record<string, unknown>) => ({
    collectionId,
    userId: crew.viewer.id,
    totalCount: 5,
    completedCount: 0,
    percentComplete: 0,
    completedVideoIds: [],
    currentVideoId: null,
    lastVideoId: null,
    lastPosition: null,
    updatedAt: null,
    ...overrides,
  });

  it('walks a playlist of 5 from 0% to 100%, currentVideoId following the order', async () => {
    const { id, ids } = await playlistOf(5);
    const start = await read(id);
    expect(start.statusCode).toBe(200);
    expect(start.json()).toEqual(progressBody(id, { currentVideoId: ids[0] }));

    const percents = [20, 40, 60, 80, 100];
    for (const [step, percent] of percents.entries()) {
      const response = await post(id, { completed: true });
      expect(response.statusCode).toBe(201);
      const expected = progressBody(id, {
        completedCount: step + 1,
        percentComplete: percent,
        completedVideoIds: ids.slice(0, step + 1),
        currentVideoId: ids[step + 1] ?? null,
        lastVideoId: ids[step],
        updatedAt: isoDate,
      });
      expect(response.json()).toEqual(expected);
      expect((await read(id)).json()).toEqual(expected);
    }
    const done = await post(id, { completed: true });
    expect(done.statusCode).toBe(400);
    expect(done.json()).toEqual(errorBody('NO_CURRENT_VIDEO'));
    expect(await eventsFor(ctx(), id, 'progress.updated')).toHaveLength(5);
  });

  it('completes out of order, un-marks, records positions and rounds to one decimal', async () => {
    const { id, ids } = await playlistOf(3);
    const [a, b, c] = ids as [string, string, string];
    const skip = await post(id, { completed: true, videoId: b });
    expect(skip.json()).toMatchObject({
      completedVideoIds: [b],
      currentVideoId: a,
      percentComplete: 33.3,
      lastVideoId: b,
      lastPosition: null,
    });
    const watching = await post(id, { position: 42.5 });
    expect(watching.statusCode).toBe(201);
    expect(watching.json()).toMatchObject({
      currentVideoId: a,
      lastVideoId: a,
      lastPosition: 42.5,
      completedCount: 1,
    });

    await post(id, { completed: true, videoId: c });
    const both = await post(id, { completed: true, videoId: a });
    expect(both.json()).toMatchObject({
      completedVideoIds: [a, b, c],
      currentVideoId: null,
      percentComplete: 100,
    });

    const again = await post(id, { completed: true, videoId: a });
    expect(again.json()).toMatchObject({ completedCount: 3 });

    const unmarked = await post(id, { completed: false, videoId: b });
    expect(unmarked.statusCode).toBe(201);
    expect(unmarked.json()).toEqual(
      progressBody(id, {
        totalCount: 3,
        completedCount: 2,
        percentComplete: 66.7,
        completedVideoIds: [a, c],
        currentVideoId: b,
        lastVideoId: a,
        updatedAt: isoDate,
      }),
    );
    const [event] = (await eventsFor(ctx(), id, 'progress.updated')).filter(
      (item) => item.metadata.completed === false,
    );
    expect(event).toMatchObject({
      organizationId: crew.organizationId,
      actorId: crew.viewer.id,
      targetType: 'progress',
      metadata: { videoId: b, completed: false, position: null },
    });
  });

  it('keeps progress per user', async () => {
    const { id, ids } = await playlistOf(2);
    await post(id, { completed: true }, crew.viewer);
    const other = await read(id, crew.member);
    expect(other.json()).toEqual(
      progressBody(id, { userId: crew.member.id, totalCount: 2, currentVideoId: ids[0] }),
    );
  });

  it('drops videos removed from the playlist or deleted out of the counts', async () => {
    const { id, ids } = await playlistOf(4);
    const [a, b, c, d] = ids as [string, string, string, string];
    await post(id, { completed: true, videoId: a });
    await post(id, { completed: true, videoId: b });
    await post(id, { position: 10, videoId: c });
    const removed = await request('DELETE', `/collections/${id}/videos/${b}`, crew.member);
    expect(removed.statusCode).toBe(200);
    await ctx().database.db.update(videos).set({ isDeleted: true }).where(eq(videos.id, c));
    const after = await read(id);
    expect(after.json()).toEqual(
      progressBody(id, {
        totalCount: 2,
        completedCount: 1,
        percentComplete: 50,
        completedVideoIds: [a],
        currentVideoId: d,
        updatedAt: isoDate,
      }),
    );
    const notListed = await post(id, { completed: true, videoId: b });
    expect(notListed.statusCode).toBe(400);
    expect(notListed.json()).toEqual({
      ...errorBody('VIDEO_NOT_IN_PLAYLIST'),
      details: [{ path: 'body.videoId', message: 'is not a video of this playlist' }],
    });
  });

  it('never loses a completion under concurrent updates', async () => {
    const { id, ids } = await playlistOf(10);
    const responses = await Promise.all(ids.map((videoId) => post(id, { completed: true, videoId })));
    expect(responses.map((response) => response.statusCode)).toEqual(ids.map(() => 201));
    const after = await read(id);
    expect(after.json()).toMatchObject({
      totalCount: 10,
      completedCount: 10,
      percentComplete: 100,
      completedVideoIds: ids,
      currentVideoId: null,
    });
    const rows = await ctx()
      .database.db.select()
      .from(playlistCompletions)
      .where(and(eq(playlistCompletions.collectionId, id), eq(playlistCompletions.userId, crew.viewer.id)));
    expect(rows).toHaveLength(10);
  });

  it('answers 400 for folders and invalid bodies', async () => {
    const folder = await createCollection(ctx, crew.member, {
      name: 'Folder',
      organizationId: crew.organizationId,
    });
    for (const response of [await read(folder.id), await post(folder.id, { completed: true })]) {
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(errorBody('NOT_A_PLAYLIST'));
    }
    const { id } = await playlistOf(1);
    const invalid = await post(id, { completed: 'yes', position: -1, videoId: 'x' });
    expect(invalid.statusCode).toBe(400);
    expect(
      invalid
        .json()
        .details.map((detail: { path: string }) => detail.path)
        .sort(),
    ).toEqual(['body.completed', 'body.position', 'body.videoId']);
    const unmarkWithoutVideo = await post(id, { completed: false });
    expect(unmarkWithoutVideo.statusCode).toBe(400);
    expect(unmarkWithoutVideo.json().details).toEqual([
      { path: 'body.videoId', message: 'is required to un-mark a video' },
    ]);
    expect((await read(id)).json()).toMatchObject({ completedCount: 0, updatedAt: null });
  });

  it('answers 403 for outsiders, 404 for unknown ids, 401 without credentials', async () => {
    const { id } = await playlistOf(1);
    for (const response of [
      await read(id, crew.outsider),
      await post(id, { completed: true }, crew.outsider),
    ]) {
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(errorBody('NOT_A_MEMBER'));
    }
    for (const collectionId of [unknownId, 'not-a-uuid']) {
      for (const response of [await read(collectionId), await post(collectionId, { completed: true })]) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject(errorBody('NOT_FOUND'));
      }
    }
    for (const user of [null, { headers: { authorization: 'Bearer nope' } }]) {
      expect((await request('GET', progressUrl(id), user)).statusCode).toBe(401);
      expect((await request('POST', progressUrl(id), user, { completed: true })).statusCode).toBe(401);
    }
    expect((await read(id)).json()).toMatchObject({ completedCount: 0 });
  });
});
