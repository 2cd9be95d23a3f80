import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { transcriptSegments, videos, videoViewers } from '../../db/schema/index.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';
import { purgeExpiredVideos } from './purge.ts';
import {
  errorPaths,
  eventsFor,
  expectListedVideo,
  expectVideo,
  makeVideo,
  type VideoBody,
} from './test-support.ts';

const DAY_MS = 24 * 3600 * 1000;

describe('video deletion, restore and purge', () => {
  const ctx = useMailingTestApp();
  let crew: Team;
  beforeAll(async () => {
    crew = await team(ctx());
    // The organization keeps deleted videos 7 days.
    const response = await ctx().app.inject({
      method: 'PATCH',
      url: `/organizations/${crew.organizationId}`,
      headers: crew.owner.headers,
      payload: { retentionDays: 7 },
    });
    expect(response.statusCode).toBe(200);
  });

  const remove = (user: SignedUpUser, id: string, query = '') =>
    ctx().app.inject({ method: 'DELETE', url: `/videos/${id}${query}`, headers: user.headers });
  const restore = (user: SignedUpUser, id: string) =>
    ctx().app.inject({ method: 'POST', url: `/videos/${id}/restore`, headers: user.headers });
  const get = (user: SignedUpUser, url: string) =>
    ctx().app.inject({ method: 'GET', url, headers: user.headers });
  const ids = (body: { data: VideoBody[] }) => body.data.map((video) => video.id);
  const rowOf = async (id: string) =>
    (await ctx().database.db.select().from(videos).where(eq(videos.id, id)))[0];

  it('soft-deletes for the retention period; the video vanishes from lists and reads', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId, { isPublic: true });
    const response = await remove(crew.member, video.id);
    expect(response.statusCode).toBe(200);
    const deleted = expectVideo(response.json(), {
      ...video,
      isDeleted: true,
      deletedAt: expect.any(String),
      retentionUntil: expect.any(String),
      updatedAt: expect.any(String),
    });
    const deletedAt = new Date(deleted.deletedAt as string).getTime();
    expect(new Date(deleted.retentionUntil as string).getTime() - deletedAt).toBe(7 * DAY_MS);
    expect(Math.abs(deletedAt - Date.now())).toBeLessThan(60_000);

    expect(ids((await get(crew.owner, '/videos')).json())).not.toContain(video.id);
    expect(
      ids((await get(crew.owner, `/videos?organizationId=${crew.organizationId}&isPublic=true`)).json()),
    ).not.toContain(video.id);
    for (const headers of [crew.owner.headers, {}]) {
      const read = await ctx().app.inject({ method: 'GET', url: `/videos/${video.id}`, headers });
      expect(read.statusCode).toBe(404);
      expect(read.json()).toEqual(errorBody('NOT_FOUND', 'Video not found'));
    }
    expect(ids((await get(crew.member, '/videos/deleted')).json())).toContain(video.id);
    const again = await remove(crew.member, video.id);
    expect(again.statusCode).toBe(404);
    expect(await eventsFor(ctx(), video.id, 'video.deleted')).toMatchObject([
      { actorId: crew.member.id, organizationId: crew.organizationId, metadata: { permanent: false } },
    ]);
  });

  it('lets only the author (member+) or an admin delete', async () => {
    const video = await makeVideo(ctx(), crew.admin, crew.organizationId);
    for (const user of [crew.member, crew.viewer]) {
      const response = await remove(user, video.id);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(
        errorBody('INSUFFICIENT_ROLE', 'Only the author or an admin can change this video'),
      );
    }
    const outsider = await remove(crew.outsider, video.id);
    expect(outsider.statusCode).toBe(404);
    expect((await remove(crew.owner, video.id)).statusCode).toBe(200);
  });

  it('lists deleted videos: authors see their own, admins all of their organization', async () => {
    const mine = await makeVideo(ctx(), crew.member, crew.organizationId, { title: 'Mine' });
    const admins = await makeVideo(ctx(), crew.admin, crew.organizationId, { title: 'Admins' });
    const kept = await makeVideo(ctx(), crew.member, crew.organizationId, { title: 'Kept' });
    await remove(crew.member, mine.id);
    await remove(crew.admin, admins.id);

    const forMember = (await get(crew.member, '/videos/deleted?limit=100')).json();
    expect(ids(forMember)).toContain(mine.id);
    expect(ids(forMember)).not.toContain(admins.id);
    for (const video of forMember.data)
      expectListedVideo(video, { authorId: crew.member.id, isDeleted: true });

    const forAdmin = (
      await get(crew.admin, `/videos/deleted?organizationId=${crew.organizationId}&limit=100`)
    ).json();
    expect(ids(forAdmin).slice(0, 2)).toEqual([admins.id, mine.id]);
    expect(ids(forAdmin)).not.toContain(kept.id);
    expect(forAdmin.pagination.total).toBe(forAdmin.data.length);

    expect((await get(crew.viewer, '/videos/deleted')).json().data).toEqual([]);
    expect((await get(crew.outsider, '/videos/deleted')).json().data).toEqual([]);
    const foreign = await get(crew.outsider, `/videos/deleted?organizationId=${crew.organizationId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual(errorBody('NOT_A_MEMBER', 'You are not a member of this organization'));
    const invalid = await get(crew.admin, '/videos/deleted?organizationId=x&limit=0');
    expect(invalid.statusCode).toBe(400);
    expect(errorPaths(invalid.json())).toEqual(['querystring.limit', 'querystring.organizationId']);
    const anonymous = await ctx().app.inject({ method: 'GET', url: '/videos/deleted' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('restores a deleted video (201) back into the lists', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId);
    await remove(crew.member, video.id);
    expect((await restore(crew.viewer, video.id)).statusCode).toBe(403);
    expect((await restore(crew.outsider, video.id)).statusCode).toBe(404);

    const response = await restore(crew.member, video.id);
    expect(response.statusCode).toBe(201);
    expectVideo(response.json(), {
      ...video,
      isDeleted: false,
      deletedAt: null,
      retentionUntil: null,
      updatedAt: expect.any(String),
    });
    expect(ids((await get(crew.viewer, '/videos?limit=100')).json())).toContain(video.id);
    expect(ids((await get(crew.member, '/videos/deleted?limit=100')).json())).not.toContain(video.id);
    expect((await get(crew.viewer, `/videos/${video.id}`)).statusCode).toBe(200);
    expect(await eventsFor(ctx(), video.id, 'video.restored')).toMatchObject([{ actorId: crew.member.id }]);

    const notDeleted = await restore(crew.member, video.id);
    expect(notDeleted.statusCode).toBe(400);
    expect(notDeleted.json()).toEqual(errorBody('VIDEO_NOT_DELETED', 'The video is not deleted'));
    const none = await ctx().app.inject({ method: 'POST', url: `/videos/${video.id}/restore` });
    expect(none.statusCode).toBe(401);
  });

  it('deletes permanently with ?permanent=true, deleted or not', async () => {
    const live = await makeVideo(ctx(), crew.member, crew.organizationId);
    const binned = await makeVideo(ctx(), crew.member, crew.organizationId);
    await remove(crew.member, binned.id);

    expect((await remove(crew.viewer, live.id, '?permanent=true')).statusCode).toBe(403);
    expect((await remove(crew.outsider, binned.id, '?permanent=true')).statusCode).toBe(404);
    const invalid = await remove(crew.member, live.id, '?permanent=perhaps');
    expect(invalid.statusCode).toBe(400);
    expect(errorPaths(invalid.json())).toEqual(['querystring.permanent']);

    for (const [user, video] of [
      [crew.member, live],
      [crew.admin, binned],
    ] as const) {
      const response = await remove(user, video.id, '?permanent=true');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: video.id, deleted: true });
      expect(await rowOf(video.id)).toBeUndefined();
      expect(await eventsFor(ctx(), video.id, 'video.deleted')).toContainEqual(
        expect.objectContaining({ actorId: user.id, metadata: expect.objectContaining({ permanent: true }) }),
      );
    }
    expect((await remove(crew.member, live.id, '?permanent=true')).statusCode).toBe(404);
  });

  it('purges videos past their retention with what hangs off them, recording video.purged', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId, {
      transcript: 'Alice: Shall we start?\nBob: Yes, the agenda first.',
    });
    const live = await makeVideo(ctx(), crew.member, crew.organizationId);
    const viewed = await ctx().app.inject({
      method: 'POST',
      url: `/videos/${video.id}/views`,
      headers: crew.viewer.headers,
      payload: {},
    });
    expect(viewed.statusCode).toBe(201);
    const segmentsOf = () =>
      ctx().database.db.select().from(transcriptSegments).where(eq(transcriptSegments.videoId, video.id));
    expect((await segmentsOf()).length).toBeGreaterThan(0);
    await remove(crew.member, video.id);
    const retentionUntil = (await rowOf(video.id))?.retentionUntil as Date;

    // Videos deleted by earlier tests expire a little sooner and go too.
    await purgeExpiredVideos(ctx().database.db, new Date(retentionUntil.getTime() - 1));
    expect(await rowOf(video.id)).toBeDefined();

    expect(await purgeExpiredVideos(ctx().database.db, retentionUntil)).toBe(1);
    expect(await rowOf(video.id)).toBeUndefined();
    expect(await rowOf(live.id)).toBeDefined();
    expect(await segmentsOf()).toEqual([]);
    const viewers = await ctx()
      .database.db.select()
      .from(videoViewers)
      .where(eq(videoViewers.videoId, video.id));
    expect(viewers).toEqual([]);
    expect(await eventsFor(ctx(), video.id, 'video.purged')).toMatchObject([
      {
        actorId: null,
        organizationId: crew.organizationId,
        targetType: 'video',
        metadata: { title: 'Weekly sync' },
      },
    ]);
  });

  it('purges through the video-purge job, as of the time it is sent', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId);
    await remove(crew.member, video.id);
    await ctx().jobs.send('video-purge', { now: new Date(Date.now() + 8 * DAY_MS).toISOString() });
    const deadline = Date.now() + 15_000;
    while ((await rowOf(video.id)) && Date.now() < deadline) await sleep(100);
    expect(await rowOf(video.id)).toBeUndefined();
    expect(await eventsFor(ctx(), video.id, 'video.purged')).toHaveLength(1);
  });
});
