import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { isoDate } from '../../../test/helpers/assertions.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { createChannelRow, createVideoRow } from '../../../test/helpers/library.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { activityEvents, videos } from '../../db/schema/index.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';

const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';
const pathsOf = (body: { details: Array<{ path: string }> }) => body.details.map((d) => d.path).sort();

describe('channels', () => {
  const ctx = useMailingTestApp();
  let t: Team;
  beforeAll(async () => {
    t = await team(ctx());
  });

  const call = requester(ctx);

  async function createChannel(user: SignedUpUser, payload: Record<string, unknown> = {}) {
    const response = await call(user, 'POST', '/channels', {
      organizationId: t.organizationId,
      name: 'Engineering',
      ...payload,
    });
    expect(response.statusCode).toBe(201);
    return response.json();
  }

  const activityFor = (targetId: string) =>
    ctx()
      .database.db.select({
        action: activityEvents.action,
        actorId: activityEvents.actorId,
        organizationId: activityEvents.organizationId,
        targetType: activityEvents.targetType,
      })
      .from(activityEvents)
      .where(eq(activityEvents.targetId, targetId))
      .orderBy(activityEvents.createdAt, activityEvents.id);

  describe('POST /channels', () => {
    it('creates a channel for a member, records it, and reads it back', async () => {
      const response = await call(t.member, 'POST', '/channels', {
        organizationId: t.organizationId,
        name: '  Product Updates ',
        description: 'Weekly demos',
        extra: 'ignored',
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toEqual({
        id: expect.any(String),
        organizationId: t.organizationId,
        name: 'Product Updates',
        description: 'Weekly demos',
        createdBy: t.member.id,
        videoCount: 0,
        followerCount: 0,
        following: false,
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      const readBack = await call(t.viewer, 'GET', `/channels/${body.id}`);
      expect(readBack.statusCode).toBe(200);
      expect(readBack.json()).toEqual(body);
      expect(await activityFor(body.id)).toEqual([
        {
          action: 'channel.created',
          actorId: t.member.id,
          organizationId: t.organizationId,
          targetType: 'channel',
        },
      ]);
    });

    it('stores an absent or empty description as null', async () => {
      expect((await createChannel(t.member)).description).toBeNull();
      expect((await createChannel(t.member, { description: '   ' })).description).toBeNull();
    });

    it('lists every invalid field in details', async () => {
      const invalid = await call(t.member, 'POST', '/channels', {
        organizationId: 'not-a-uuid',
        name: ' ',
        description: 'x'.repeat(2001),
      });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json()).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
      expect(pathsOf(invalid.json())).toEqual(['body.description', 'body.name', 'body.organizationId']);

      const missing = await call(t.member, 'POST', '/channels', {});
      expect(pathsOf(missing.json())).toEqual(['body.name', 'body.organizationId']);
      const tooLong = await call(t.member, 'POST', '/channels', {
        organizationId: t.organizationId,
        name: 'x'.repeat(101),
      });
      expect(pathsOf(tooLong.json())).toEqual(['body.name']);
    });

    it('answers 401 without valid credentials', async () => {
      const anonymous = await call(null, 'POST', '/channels', {
        organizationId: t.organizationId,
        name: 'A',
      });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
      const invalid = await ctx().app.inject({
        method: 'POST',
        url: '/channels',
        headers: { authorization: 'Bearer not-a-session' },
        payload: { organizationId: t.organizationId, name: 'A' },
      });
      expect(invalid.statusCode).toBe(401);
      expect(invalid.json()).toEqual(errorBody('INVALID_SESSION', 'Invalid session'));
    });

    it('refuses viewers (403 INSUFFICIENT_ROLE) and outsiders (403 NOT_A_MEMBER)', async () => {
      const payload = { organizationId: t.organizationId, name: 'Nope' };
      const viewer = await call(t.viewer, 'POST', '/channels', payload);
      expect(viewer.statusCode).toBe(403);
      expect(viewer.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      const outsider = await call(t.outsider, 'POST', '/channels', payload);
      expect(outsider.statusCode).toBe(403);
      expect(outsider.json()).toEqual(errorBody('NOT_A_MEMBER', 'You are not a member of this organization'));
      const unknown = await call(t.member, 'POST', '/channels', { ...payload, organizationId: unknownId });
      expect(unknown.statusCode).toBe(403);
      expect(unknown.json()).toEqual(errorBody('NOT_A_MEMBER'));
    });
  });

  describe('GET /channels', () => {
    it("lists the channels of the caller's organizations by name, paginated, and filters by organization", async () => {
      const db = ctx().database.db;
      const user = t.outsider;
      const own = await createChannelRow(db, { organizationId: user.organizationId, name: 'b-own' });
      const second = await createChannelRow(db, { organizationId: user.organizationId, name: 'a-own' });
      const page1 = await call(user, 'GET', '/channels?limit=1');
      expect(page1.statusCode).toBe(200);
      expect(page1.json().pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
      expect(page1.json().data.map((c: { id: string }) => c.id)).toEqual([second.id]);
      const page2 = await call(user, 'GET', '/channels?limit=1&page=2');
      expect(page2.json().data.map((c: { id: string }) => c.id)).toEqual([own.id]);

      // The team's channels never show in the outsider's list, and vice versa.
      const teamList = await call(t.viewer, 'GET', `/channels?organizationId=${t.organizationId}&limit=100`);
      expect(teamList.statusCode).toBe(200);
      const teamIds = teamList.json().data.map((c: { id: string }) => c.id);
      expect(teamIds).not.toContain(own.id);
      const names = teamList.json().data.map((c: { name: string }) => c.name);
      expect(names).toEqual([...names].sort());
      expect(
        teamList.json().data.every((c: { organizationId: string }) => c.organizationId === t.organizationId),
      ).toBe(true);
    });

    it('refuses an organization the caller is not a member of, and invalid queries', async () => {
      const foreign = await call(t.outsider, 'GET', `/channels?organizationId=${t.organizationId}`);
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()).toEqual(errorBody('NOT_A_MEMBER'));
      const invalid = await call(t.member, 'GET', '/channels?organizationId=nope&page=0&limit=101');
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual([
        'querystring.limit',
        'querystring.organizationId',
        'querystring.page',
      ]);
      const anonymous = await call(null, 'GET', '/channels');
      expect(anonymous.statusCode).toBe(401);
    });
  });

  describe('GET /channels/{id}', () => {
    it('counts non-deleted videos and followers, and says whether the caller follows', async () => {
      const db = ctx().database.db;
      const channel = await createChannel(t.member);
      const common = { organizationId: t.organizationId, authorId: t.member.id, channelId: channel.id };
      await createVideoRow(db, common);
      await createVideoRow(db, common);
      await createVideoRow(db, { ...common, isDeleted: true, deletedAt: new Date() });
      await call(t.viewer, 'POST', `/channels/${channel.id}/follow`);

      const asViewer = await call(t.viewer, 'GET', `/channels/${channel.id}`);
      expect(asViewer.json()).toMatchObject({ videoCount: 2, followerCount: 1, following: true });
      const asAdmin = await call(t.admin, 'GET', `/channels/${channel.id}`);
      expect(asAdmin.json()).toMatchObject({ videoCount: 2, followerCount: 1, following: false });
    });

    it('answers 404 alike for an outsider, an unknown id and a malformed id', async () => {
      const channel = await createChannel(t.member);
      const outsider = await call(t.outsider, 'GET', `/channels/${channel.id}`);
      const unknown = await call(t.member, 'GET', `/channels/${unknownId}`);
      expect(outsider.statusCode).toBe(404);
      expect(outsider.json()).toEqual(errorBody('NOT_FOUND', 'Channel not found'));
      expect(unknown.json()).toEqual(outsider.json());
      expect((await call(t.member, 'GET', '/channels/not-a-uuid')).statusCode).toBe(404);
      expect((await call(null, 'GET', `/channels/${channel.id}`)).statusCode).toBe(401);
    });
  });

  describe('PATCH /channels/{id}', () => {
    it('lets the creator rename and clear the description, and records it', async () => {
      const channel = await createChannel(t.member, { description: 'old' });
      const response = await call(t.member, 'PATCH', `/channels/${channel.id}`, {
        name: 'Renamed',
        description: null,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ...channel, name: 'Renamed', description: null, updatedAt: isoDate });
      expect((await call(t.member, 'GET', `/channels/${channel.id}`)).json()).toEqual(response.json());
      expect((await activityFor(channel.id)).map((event) => event.action)).toEqual([
        'channel.created',
        'channel.updated',
      ]);
    });

    it('lets an admin change anyone’s channel, but not another member or a viewer', async () => {
      const channel = await createChannel(t.member);
      const other = await call(t.owner, 'POST', '/channels', {
        organizationId: t.organizationId,
        name: 'Owned',
      });
      const byMember = await call(t.member, 'PATCH', `/channels/${other.json().id}`, { name: 'Mine now' });
      expect(byMember.statusCode).toBe(403);
      expect(byMember.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      const byViewer = await call(t.viewer, 'PATCH', `/channels/${channel.id}`, { name: 'X' });
      expect(byViewer.statusCode).toBe(403);
      const byAdmin = await call(t.admin, 'PATCH', `/channels/${channel.id}`, { description: 'by admin' });
      expect(byAdmin.statusCode).toBe(200);
      expect(byAdmin.json()).toMatchObject({ name: 'Engineering', description: 'by admin' });
    });

    it('answers 404 to outsiders and 400 with details for invalid bodies', async () => {
      const channel = await createChannel(t.member);
      const outsider = await call(t.outsider, 'PATCH', `/channels/${channel.id}`, { name: 'X' });
      expect(outsider.statusCode).toBe(404);
      expect(outsider.json()).toEqual(errorBody('NOT_FOUND', 'Channel not found'));
      const empty = await call(t.member, 'PATCH', `/channels/${channel.id}`, {});
      expect(empty.statusCode).toBe(400);
      expect(pathsOf(empty.json())).toEqual(['body']);
      const invalid = await call(t.member, 'PATCH', `/channels/${channel.id}`, {
        name: '',
        description: 'x'.repeat(2001),
      });
      expect(pathsOf(invalid.json())).toEqual(['body.description', 'body.name']);
      expect((await call(t.member, 'GET', `/channels/${channel.id}`)).json().name).toBe('Engineering');
    });
  });

  describe('DELETE /channels/{id}', () => {
    it('deletes the channel and keeps its videos, without a channel', async () => {
      const db = ctx().database.db;
      const channel = await createChannel(t.member);
      const video = await createVideoRow(db, {
        organizationId: t.organizationId,
        authorId: t.member.id,
        channelId: channel.id,
      });
      const response = await call(t.member, 'DELETE', `/channels/${channel.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: channel.id, deleted: true });
      expect((await call(t.member, 'GET', `/channels/${channel.id}`)).statusCode).toBe(404);
      const [kept] = await db.select().from(videos).where(eq(videos.id, video.id));
      expect(kept).toMatchObject({ id: video.id, channelId: null, isDeleted: false });
      expect((await activityFor(channel.id)).map((event) => event.action)).toEqual([
        'channel.created',
        'channel.deleted',
      ]);
      expect((await call(t.member, 'DELETE', `/channels/${channel.id}`)).statusCode).toBe(404);
    });

    it('allows the creator or an admin only; outsiders get 404', async () => {
      const channel = await createChannel(t.admin);
      const byMember = await call(t.member, 'DELETE', `/channels/${channel.id}`);
      expect(byMember.statusCode).toBe(403);
      expect(byMember.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      const byOutsider = await call(t.outsider, 'DELETE', `/channels/${channel.id}`);
      expect(byOutsider.statusCode).toBe(404);
      expect((await call(t.member, 'GET', `/channels/${channel.id}`)).statusCode).toBe(200);
      const byOwner = await call(t.owner, 'DELETE', `/channels/${channel.id}`);
      expect(byOwner.statusCode).toBe(200);
      expect((await call(null, 'DELETE', `/channels/${channel.id}`)).statusCode).toBe(401);
    });
  });

  describe('GET /channels/{id}/videos', () => {
    it("lists the channel's non-deleted videos newest first, paginated", async () => {
      const db = ctx().database.db;
      const channel = await createChannel(t.member);
      const common = { organizationId: t.organizationId, authorId: t.member.id, channelId: channel.id };
      const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 10, minutes));
      const oldest = await createVideoRow(db, { ...common, title: 'oldest', createdAt: at(0) });
      const newest = await createVideoRow(db, { ...common, title: 'newest', createdAt: at(2) });
      const middle = await createVideoRow(db, { ...common, title: 'middle', createdAt: at(1) });
      await createVideoRow(db, { ...common, createdAt: at(3), isDeleted: true, deletedAt: at(4) });
      await createVideoRow(db, { organizationId: t.organizationId, authorId: t.member.id, createdAt: at(5) });

      const first = await call(t.viewer, 'GET', `/channels/${channel.id}/videos?limit=2`);
      expect(first.statusCode).toBe(200);
      expect(first.json().pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
      expect(first.json().data.map((v: { id: string }) => v.id)).toEqual([newest.id, middle.id]);
      expect(first.json().data[0]).toEqual({
        id: newest.id,
        title: 'newest',
        description: null,
        duration: '10:00',
        durationSeconds: 600,
        thumbnailUrl: null,
        videoUrl: null,
        authorId: t.member.id,
        organizationId: t.organizationId,
        channelId: channel.id,
        collectionId: null,
        seriesId: null,
        hasTranscript: false,
        transcriptStatus: 'none',
        transcriptError: null,
        aiSummary: null,
        viewCount: 0,
        isPublic: false,
        isDeleted: false,
        deletedAt: null,
        retentionUntil: null,
        recordedAt: null,
        createdAt: at(2).toISOString(),
        updatedAt: isoDate,
      });
      const second = await call(t.viewer, 'GET', `/channels/${channel.id}/videos?limit=2&page=2`);
      expect(second.json().data.map((v: { id: string }) => v.id)).toEqual([oldest.id]);
    });

    it('answers 404 to outsiders and 400 to invalid pagination', async () => {
      const channel = await createChannel(t.member);
      const outsider = await call(t.outsider, 'GET', `/channels/${channel.id}/videos`);
      expect(outsider.statusCode).toBe(404);
      expect(outsider.json()).toEqual(errorBody('NOT_FOUND', 'Channel not found'));
      const invalid = await call(t.member, 'GET', `/channels/${channel.id}/videos?limit=0`);
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual(['querystring.limit']);
    });
  });

  describe('following', () => {
    it('follows idempotently, unfollows idempotently, and records each change once', async () => {
      const channel = await createChannel(t.member);
      const url = `/channels/${channel.id}/follow`;
      for (let attempt = 0; attempt < 2; attempt++) {
        const followed = await call(t.viewer, 'POST', url);
        expect(followed.statusCode).toBe(201);
        expect(followed.json()).toEqual({ channelId: channel.id, following: true, followerCount: 1 });
      }
      const byAdmin = await call(t.admin, 'POST', url);
      expect(byAdmin.json()).toEqual({ channelId: channel.id, following: true, followerCount: 2 });
      expect((await call(t.viewer, 'GET', `/channels/${channel.id}`)).json()).toMatchObject({
        following: true,
        followerCount: 2,
      });

      for (let attempt = 0; attempt < 2; attempt++) {
        const unfollowed = await call(t.viewer, 'DELETE', url);
        expect(unfollowed.statusCode).toBe(200);
        expect(unfollowed.json()).toEqual({ channelId: channel.id, following: false, followerCount: 1 });
      }
      expect((await call(t.viewer, 'GET', `/channels/${channel.id}`)).json()).toMatchObject({
        following: false,
        followerCount: 1,
      });
      const events = await activityFor(channel.id);
      expect(events.filter((event) => event.actorId === t.viewer.id).map((event) => event.action)).toEqual([
        'channel.followed',
        'channel.unfollowed',
      ]);
    });

    it('answers 404 to outsiders and for unknown channels, 401 without credentials', async () => {
      const channel = await createChannel(t.member);
      const outsider = await call(t.outsider, 'POST', `/channels/${channel.id}/follow`);
      expect(outsider.statusCode).toBe(404);
      expect(outsider.json()).toEqual(errorBody('NOT_FOUND', 'Channel not found'));
      expect((await call(t.outsider, 'DELETE', `/channels/${channel.id}/follow`)).statusCode).toBe(404);
      expect((await call(t.member, 'POST', `/channels/${unknownId}/follow`)).statusCode).toBe(404);
      expect((await call(null, 'POST', `/channels/${channel.id}/follow`)).statusCode).toBe(401);
      expect((await call(t.member, 'GET', `/channels/${channel.id}`)).json().followerCount).toBe(0);
    });
  });
});
