import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { isoDate } from '../../../test/helpers/assertions.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { createSeriesRow, createVideoRow } from '../../../test/helpers/library.ts';
import { requester } from '../../../test/helpers/requests.ts';
import { activityEvents, videos } from '../../db/schema/index.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';

const unknownId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';
const pathsOf = (body: { details: Array<{ path: string }> }) => body.details.map((d) => d.path).sort();
const day = (n: number) => new Date(Date.UTC(2026, 2, n, 9));

describe('series', () => {
  const ctx = useMailingTestApp();
  let t: Team;
  beforeAll(async () => {
    t = await team(ctx());
  });

  const call = requester(ctx);

  async function createSeries(user: SignedUpUser, payload: Record<string, unknown> = {}) {
    const response = await call(user, 'POST', '/series', {
      organizationId: t.organizationId,
      name: 'Weekly product sync',
      ...payload,
    });
    expect(response.statusCode).toBe(201);
    return response.json();
  }

  const actionsFor = async (targetId: string) =>
    (
      await ctx()
        .database.db.select({ action: activityEvents.action, actorId: activityEvents.actorId })
        .from(activityEvents)
        .where(eq(activityEvents.targetId, targetId))
        .orderBy(activityEvents.createdAt, activityEvents.id)
    ).map((event) => `${event.action} by ${event.actorId}`);

  describe('POST /series', () => {
    it('creates an adhoc series by default, records it, and reads it back', async () => {
      const response = await call(t.member, 'POST', '/series', {
        organizationId: t.organizationId,
        name: ' Design review ',
        description: 'Every other week',
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toEqual({
        id: expect.any(String),
        organizationId: t.organizationId,
        name: 'Design review',
        description: 'Every other week',
        cadence: 'adhoc',
        createdBy: t.member.id,
        videoCount: 0,
        lastRecordedAt: null,
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      const readBack = await call(t.viewer, 'GET', `/series/${body.id}`);
      expect(readBack.statusCode).toBe(200);
      expect(readBack.json()).toEqual(body);
      expect(await actionsFor(body.id)).toEqual([`series.created by ${t.member.id}`]);
      expect((await createSeries(t.member, { cadence: 'biweekly' })).cadence).toBe('biweekly');
    });

    it('lists every invalid field in details', async () => {
      const invalid = await call(t.member, 'POST', '/series', {
        organizationId: 42,
        name: 'x'.repeat(101),
        description: 'x'.repeat(2001),
        cadence: 'daily',
      });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json()).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
      expect(pathsOf(invalid.json())).toEqual([
        'body.cadence',
        'body.description',
        'body.name',
        'body.organizationId',
      ]);
    });

    it('answers 401 without credentials, 403 to viewers and outsiders', async () => {
      const payload = { organizationId: t.organizationId, name: 'X' };
      expect((await call(null, 'POST', '/series', payload)).json()).toEqual(
        errorBody('UNAUTHORIZED', 'Authentication required'),
      );
      const badToken = await ctx().app.inject({
        method: 'POST',
        url: '/series',
        headers: { authorization: 'Bearer nope' },
        payload,
      });
      expect(badToken.statusCode).toBe(401);
      const viewer = await call(t.viewer, 'POST', '/series', payload);
      expect(viewer.statusCode).toBe(403);
      expect(viewer.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      const outsider = await call(t.outsider, 'POST', '/series', payload);
      expect(outsider.statusCode).toBe(403);
      expect(outsider.json()).toEqual(errorBody('NOT_A_MEMBER'));
    });
  });

  describe('GET /series', () => {
    it("lists the series of the caller's organizations by name, paginated, with their stats", async () => {
      const db = ctx().database.db;
      const user = t.outsider;
      const later = await createSeriesRow(db, { organizationId: user.organizationId, name: 'Zeta sync' });
      const first = await createSeriesRow(db, { organizationId: user.organizationId, name: 'Alpha sync' });
      const common = { organizationId: user.organizationId, authorId: user.id, seriesId: first.id };
      await createVideoRow(db, { ...common, recordedAt: day(3) });
      await createVideoRow(db, { ...common, recordedAt: day(5) });
      await createVideoRow(db, { ...common, recordedAt: day(9), isDeleted: true, deletedAt: day(10) });

      const page1 = await call(user, 'GET', '/series?limit=1');
      expect(page1.statusCode).toBe(200);
      expect(page1.json().pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
      expect(page1.json().data).toEqual([
        expect.objectContaining({ id: first.id, videoCount: 2, lastRecordedAt: day(5).toISOString() }),
      ]);
      const page2 = await call(user, 'GET', `/series?limit=1&page=2&organizationId=${user.organizationId}`);
      expect(page2.json().data).toEqual([
        expect.objectContaining({ id: later.id, videoCount: 0, lastRecordedAt: null }),
      ]);
      const teamList = await call(t.member, 'GET', '/series?limit=100');
      expect(teamList.json().data.map((s: { id: string }) => s.id)).not.toContain(first.id);
    });

    it('refuses a foreign organization (403) and invalid queries (400)', async () => {
      const foreign = await call(t.outsider, 'GET', `/series?organizationId=${t.organizationId}`);
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()).toEqual(errorBody('NOT_A_MEMBER'));
      const invalid = await call(t.member, 'GET', '/series?organizationId=x&limit=500');
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual(['querystring.limit', 'querystring.organizationId']);
    });
  });

  describe('GET /series/{id}', () => {
    it('answers 404 alike for an outsider and an unknown id', async () => {
      const created = await createSeries(t.member);
      const outsider = await call(t.outsider, 'GET', `/series/${created.id}`);
      expect(outsider.statusCode).toBe(404);
      expect(outsider.json()).toEqual(errorBody('NOT_FOUND', 'Series not found'));
      expect((await call(t.member, 'GET', `/series/${unknownId}`)).json()).toEqual(outsider.json());
      expect((await call(t.member, 'GET', '/series/123')).statusCode).toBe(404);
      expect((await call(null, 'GET', `/series/${created.id}`)).statusCode).toBe(401);
    });
  });

  describe('PATCH /series/{id}', () => {
    it('lets the creator change name, cadence and clear the description, and records it', async () => {
      const created = await createSeries(t.member, { description: 'old', cadence: 'weekly' });
      const response = await call(t.member, 'PATCH', `/series/${created.id}`, {
        cadence: 'monthly',
        description: null,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        ...created,
        cadence: 'monthly',
        description: null,
        updatedAt: isoDate,
      });
      expect((await call(t.viewer, 'GET', `/series/${created.id}`)).json()).toEqual(response.json());
      expect(await actionsFor(created.id)).toEqual([
        `series.created by ${t.member.id}`,
        `series.updated by ${t.member.id}`,
      ]);
    });

    it('allows the creator or an admin only; outsiders get 404; invalid bodies 400', async () => {
      const created = await createSeries(t.admin);
      const byMember = await call(t.member, 'PATCH', `/series/${created.id}`, { name: 'Mine' });
      expect(byMember.statusCode).toBe(403);
      expect(byMember.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      const byOutsider = await call(t.outsider, 'PATCH', `/series/${created.id}`, { name: 'Mine' });
      expect(byOutsider.statusCode).toBe(404);
      const invalid = await call(t.owner, 'PATCH', `/series/${created.id}`, { cadence: 'hourly', name: '' });
      expect(pathsOf(invalid.json())).toEqual(['body.cadence', 'body.name']);
      const empty = await call(t.owner, 'PATCH', `/series/${created.id}`, {});
      expect(pathsOf(empty.json())).toEqual(['body']);
      const byOwner = await call(t.owner, 'PATCH', `/series/${created.id}`, { name: 'Renamed' });
      expect(byOwner.statusCode).toBe(200);
      expect(byOwner.json().name).toBe('Renamed');
    });
  });

  describe('DELETE /series/{id}', () => {
    it('deletes the series and keeps its videos, without a series', async () => {
      const db = ctx().database.db;
      const created = await createSeries(t.member);
      const video = await createVideoRow(db, {
        organizationId: t.organizationId,
        authorId: t.member.id,
        seriesId: created.id,
      });
      const byViewer = await call(t.viewer, 'DELETE', `/series/${created.id}`);
      expect(byViewer.statusCode).toBe(403);
      expect((await call(t.outsider, 'DELETE', `/series/${created.id}`)).statusCode).toBe(404);

      const response = await call(t.admin, 'DELETE', `/series/${created.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: created.id, deleted: true });
      expect((await call(t.member, 'GET', `/series/${created.id}`)).statusCode).toBe(404);
      const [kept] = await db.select().from(videos).where(eq(videos.id, video.id));
      expect(kept).toMatchObject({ id: video.id, seriesId: null, isDeleted: false });
      expect(await actionsFor(created.id)).toEqual([
        `series.created by ${t.member.id}`,
        `series.deleted by ${t.admin.id}`,
      ]);
    });
  });

  describe('GET /series/{id}/videos', () => {
    it('lists occurrences by recording date, undated ones last by creation, paginated', async () => {
      const db = ctx().database.db;
      const created = await createSeries(t.member);
      const common = { organizationId: t.organizationId, authorId: t.member.id, seriesId: created.id };
      const undatedLater = await createVideoRow(db, { ...common, createdAt: day(2) });
      const undatedEarlier = await createVideoRow(db, { ...common, createdAt: day(1) });
      const march8 = await createVideoRow(db, { ...common, recordedAt: day(8), createdAt: day(20) });
      const march4 = await createVideoRow(db, { ...common, recordedAt: day(4), createdAt: day(21) });
      await createVideoRow(db, { ...common, recordedAt: day(6), isDeleted: true, deletedAt: day(7) });
      await createVideoRow(db, {
        organizationId: t.organizationId,
        authorId: t.member.id,
        recordedAt: day(5),
      });

      const page1 = await call(t.viewer, 'GET', `/series/${created.id}/videos?limit=3`);
      expect(page1.statusCode).toBe(200);
      expect(page1.json().pagination).toEqual({ page: 1, limit: 3, total: 4, totalPages: 2 });
      expect(page1.json().data.map((v: { id: string }) => v.id)).toEqual([
        march4.id,
        march8.id,
        undatedEarlier.id,
      ]);
      expect(page1.json().data[0]).toMatchObject({
        id: march4.id,
        seriesId: created.id,
        recordedAt: day(4).toISOString(),
        createdAt: day(21).toISOString(),
        isDeleted: false,
      });
      const page2 = await call(t.viewer, 'GET', `/series/${created.id}/videos?limit=3&page=2`);
      expect(page2.json().data.map((v: { id: string }) => v.id)).toEqual([undatedLater.id]);
      expect((await call(t.viewer, 'GET', `/series/${created.id}`)).json()).toMatchObject({
        videoCount: 4,
        lastRecordedAt: day(8).toISOString(),
      });
    });

    it('answers 404 to outsiders and 400 to invalid pagination', async () => {
      const created = await createSeries(t.member);
      const outsider = await call(t.outsider, 'GET', `/series/${created.id}/videos`);
      expect(outsider.statusCode).toBe(404);
      expect(outsider.json()).toEqual(errorBody('NOT_FOUND', 'Series not found'));
      const invalid = await call(t.member, 'GET', `/series/${created.id}/videos?page=-1`);
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual(['querystring.page']);
    });
  });
});
