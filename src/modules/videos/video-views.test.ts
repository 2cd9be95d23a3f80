import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { videoViewers } from '../../db/schema/index.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';
import { errorPaths, eventsFor, makeVideo } from './test-support.ts';

const MINUTE_MS = 60_000;

describe('POST /videos/{id}/views', () => {
  const ctx = useMailingTestApp();
  let crew: Team;
  beforeAll(async () => {
    crew = await team(ctx());
  });

  const view = (id: string, headers: Record<string, string>, payload: Record<string, unknown> = {}) =>
    ctx().app.inject({ method: 'POST', url: `/videos/${id}/views`, headers, payload });
  const viewerRows = (videoId: string) =>
    ctx().database.db.select().from(videoViewers).where(eq(videoViewers.videoId, videoId));

  it('counts one view per viewer per 30 minutes and keeps the position', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId, { duration: '1:00:00' });
    const first = await view(video.id, crew.viewer.headers, { position: 12.5 });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ videoId: video.id, viewCount: 1, counted: true, position: 12.5 });

    const again = await view(video.id, crew.viewer.headers, { position: 95 });
    expect(again.json()).toEqual({ videoId: video.id, viewCount: 1, counted: false, position: 95 });
    const noPosition = await view(video.id, crew.viewer.headers);
    expect(noPosition.json()).toEqual({ videoId: video.id, viewCount: 1, counted: false, position: 95 });

    const other = await view(video.id, crew.owner.headers);
    expect(other.json()).toEqual({ videoId: video.id, viewCount: 2, counted: true, position: null });

    ctx().clock.advance(29 * MINUTE_MS);
    try {
      expect((await view(video.id, crew.viewer.headers)).json().counted).toBe(false);
      ctx().clock.advance(2 * MINUTE_MS);
      const later = await view(video.id, crew.viewer.headers, { position: 0 });
      expect(later.json()).toEqual({ videoId: video.id, viewCount: 3, counted: true, position: 0 });
    } finally {
      ctx().clock.reset();
    }

    const read = await ctx().app.inject({
      method: 'GET',
      url: `/videos/${video.id}`,
      headers: crew.viewer.headers,
    });
    expect(read.json().viewCount).toBe(3);
    const [row] = await ctx()
      .database.db.select()
      .from(videoViewers)
      .where(and(eq(videoViewers.videoId, video.id), eq(videoViewers.viewerKey, crew.viewer.id)));
    expect(row).toMatchObject({ userId: crew.viewer.id, position: 0 });
    const events = await eventsFor(ctx(), video.id, 'video.viewed');
    expect(events.map((event) => event.actorId).sort()).toEqual(
      [crew.owner.id, crew.viewer.id, crew.viewer.id].sort(),
    );
  });

  it('counts concurrent calls from one viewer once', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId);
    const responses = await Promise.all(Array.from({ length: 8 }, () => view(video.id, crew.admin.headers)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(8).fill(201));
    expect(responses.filter((response) => response.json().counted)).toHaveLength(1);
    const read = await ctx().app.inject({
      method: 'GET',
      url: `/videos/${video.id}`,
      headers: crew.admin.headers,
    });
    expect(read.json().viewCount).toBe(1);
    expect(await viewerRows(video.id)).toHaveLength(1);
  });

  it('counts anonymous viewers of a public video by address and browser, storing no address', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId, { isPublic: true });
    const firefox = { 'user-agent': 'Firefox' };
    expect((await view(video.id, firefox, { position: 3 })).json()).toEqual({
      videoId: video.id,
      viewCount: 1,
      counted: true,
      position: 3,
    });
    expect((await view(video.id, firefox)).json()).toMatchObject({
      viewCount: 1,
      counted: false,
      position: 3,
    });
    expect((await view(video.id, { 'user-agent': 'Safari' })).json()).toMatchObject({
      viewCount: 2,
      counted: true,
    });
    const outsider = await view(video.id, crew.outsider.headers);
    expect(outsider.json()).toMatchObject({ viewCount: 3, counted: true });

    const rows = await viewerRows(video.id);
    expect(rows).toHaveLength(3);
    for (const row of rows.filter((candidate) => candidate.userId === null)) {
      expect(row.viewerKey).toMatch(/^[0-9a-f]{64}$/);
    }
    const events = await eventsFor(ctx(), video.id, 'video.viewed');
    expect(events.filter((event) => event.actorId === null)).toHaveLength(2);
  });

  it('hides private videos from anonymous callers and outsiders (404)', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId);
    for (const headers of [{}, crew.outsider.headers]) {
      const response = await view(video.id, headers);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Video not found'));
    }
    for (const id of ['0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091', 'nope']) {
      expect((await view(id, crew.owner.headers)).statusCode).toBe(404);
    }
    const invalid = await view(video.id, { authorization: 'Bearer nope' });
    expect(invalid.statusCode).toBe(401);
    expect(invalid.json()).toEqual(errorBody('INVALID_SESSION', 'Invalid session'));
    expect(await viewerRows(video.id)).toEqual([]);
  });

  it('validates the position', async () => {
    const video = await makeVideo(ctx(), crew.member, crew.organizationId, { duration: '60' });
    for (const position of [-1, 'ten']) {
      const response = await view(video.id, crew.member.headers, { position });
      expect(response.statusCode).toBe(400);
      expect(errorPaths(response.json())).toEqual(['body.position']);
    }
    const past = await view(video.id, crew.member.headers, { position: 61 });
    expect(past.statusCode).toBe(400);
    expect(past.json()).toEqual({
      ...errorBody('VALIDATION_ERROR', 'Invalid request'),
      details: [{ path: 'body.position', message: 'must not be past the end of the video' }],
    });
    expect(await viewerRows(video.id)).toEqual([]);
  });
});
