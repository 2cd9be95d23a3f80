import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';

const VTT = readFileSync(new URL('./fixtures/two-speakers.vtt', import.meta.url), 'utf8');

describe('speaker analytics', () => {
  const ctx = useTestApp();
  let owner: SignedUpUser;
  let outsider: SignedUpUser;
  let alice: string;
  let bob: string;
  let videoId: string;
  let seriesId: string;

  const get = (user: SignedUpUser | null, url: string) =>
    ctx().app.inject({ method: 'GET', url, headers: user?.headers ?? {} });

  beforeAll(async () => {
    owner = await signUpUser(ctx().app);
    outsider = await signUpUser(ctx().app);
    const series = await ctx().app.inject({
      method: 'POST',
      url: '/series',
      headers: owner.headers,
      payload: { organizationId: owner.organizationId, name: 'Launch syncs' },
    });
    seriesId = series.json().id;
    for (const [title, recordedAt, inSeries] of [
      ['Launch sync 1', '2026-03-02T10:00:00.000Z', true],
      ['Launch sync 2', '2026-03-11T10:00:00.000Z', false],
    ] as const) {
      const created = await ctx().app.inject({
        method: 'POST',
        url: '/videos',
        headers: owner.headers,
        payload: {
          organizationId: owner.organizationId,
          title,
          duration: '0:40',
          recordedAt,
          transcript: VTT,
          ...(inSeries ? { seriesId } : {}),
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      videoId ??= created.json().id;
    }
    const listed = await get(owner, `/speakers?organizationId=${owner.organizationId}`);
    const ids = Object.fromEntries(
      listed.json().data.map((speaker: { id: string; name: string }) => [speaker.name, speaker.id]),
    );
    alice = ids.Alice;
    bob = ids.Bob;
  });

  describe('GET /analytics/speakers', () => {
    it('sums the stored metrics of every meeting, most talk first, with the totals', async () => {
      const response = await get(owner, '/analytics/speakers');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.data).toEqual([
        {
          speakerId: alice,
          name: 'Alice',
          userId: null,
          videoCount: 2,
          talkTimeSeconds: 42,
          talkShare: 0.583,
          wordCount: 56,
          wordsPerMinute: 80,
          turns: 4,
          longestMonologueSeconds: 11,
          averageMonologueSeconds: 10.5,
          questionCount: 4,
          interruptions: 2,
          patienceSeconds: 0,
        },
        {
          speakerId: bob,
          name: 'Bob',
          userId: null,
          videoCount: 2,
          talkTimeSeconds: 30,
          talkShare: 0.417,
          wordCount: 24,
          wordsPerMinute: 48,
          turns: 4,
          longestMonologueSeconds: 8,
          averageMonologueSeconds: 7.5,
          questionCount: 0,
          interruptions: 0,
          patienceSeconds: 2.5,
        },
      ]);
      expect(body.totals).toEqual({
        speakerCount: 2,
        videoCount: 2,
        talkTimeSeconds: 72,
        wordCount: 80,
        turns: 8,
        questionCount: 4,
        interruptions: 2,
      });
      expect(body.pagination).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    });

    it('keeps the meetings of a period, a series; and pages', async () => {
      const march = await get(
        owner,
        '/analytics/speakers?from=2026-03-10T00:00:00.000Z&to=2026-03-20T00:00:00.000Z',
      );
      expect(march.json().totals).toMatchObject({ videoCount: 1, talkTimeSeconds: 36 });
      const series = await get(owner, `/analytics/speakers?seriesId=${seriesId}`);
      expect(series.json().data.map((row: { videoCount: number }) => row.videoCount)).toEqual([1, 1]);
      const second = await get(owner, '/analytics/speakers?limit=1&page=2');
      expect(second.json().data.map((row: { name: string }) => row.name)).toEqual(['Bob']);
    });

    it('answers 401 without credentials, 403 for an organization not the caller’s, 400 for bad filters', async () => {
      expect((await get(null, '/analytics/speakers')).statusCode).toBe(401);
      const foreign = await get(outsider, `/analytics/speakers?organizationId=${owner.organizationId}`);
      expect(foreign.statusCode).toBe(403);
      const own = await get(outsider, '/analytics/speakers');
      expect(own.json().data).toEqual([]);
      const bad = await get(owner, `/analytics/speakers?from=yesterday&seriesId=nope&limit=0`);
      expect(bad.statusCode).toBe(400);
      expect(
        bad
          .json()
          .details.map((detail: { path: string }) => detail.path)
          .sort(),
      ).toEqual(['querystring.from', 'querystring.limit', 'querystring.seriesId']);
      const otherSeries = await ctx().app.inject({
        method: 'POST',
        url: '/series',
        headers: outsider.headers,
        payload: { organizationId: outsider.organizationId, name: 'Theirs' },
      });
      const foreignSeries = await get(owner, `/analytics/speakers?seriesId=${otherSeries.json().id}`);
      expect(foreignSeries.statusCode).toBe(400);
    });
  });

  describe('GET /analytics/speakers/{speakerId}', () => {
    it('answers the metrics, per meeting, per week, topics and co-speakers', async () => {
      const response = await get(owner, `/analytics/speakers/${alice}`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({
        speakerId: alice,
        name: 'Alice',
        talkTimeSeconds: 42,
        talkShare: 0.583,
        interruptions: 2,
      });
      expect(body.meetings).toEqual([
        expect.objectContaining({
          title: 'Launch sync 2',
          date: '2026-03-11T10:00:00.000Z',
          talkTimeSeconds: 21,
          talkRatio: 0.583,
          wordCount: 28,
          turns: 2,
          questionCount: 2,
          interruptions: 1,
        }),
        expect.objectContaining({ title: 'Launch sync 1', videoId, talkRatio: 0.583 }),
      ]);
      expect(body.weekly).toEqual([
        { weekStart: '2026-03-02T00:00:00.000Z', videoCount: 1, talkTimeSeconds: 21, wordCount: 28 },
        { weekStart: '2026-03-09T00:00:00.000Z', videoCount: 1, talkTimeSeconds: 21, wordCount: 28 },
      ]);
      expect(body.coSpeakers).toEqual([{ speakerId: bob, name: 'Bob', sharedVideos: 2 }]);
      expect(Array.isArray(body.topTopics)).toBe(true);
    });

    it('answers 404 for an unknown, malformed or other organization’s speaker, 401 without credentials', async () => {
      expect((await get(owner, '/analytics/speakers/0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091')).statusCode).toBe(
        404,
      );
      expect((await get(owner, '/analytics/speakers/not-a-uuid')).statusCode).toBe(404);
      const foreign = await get(outsider, `/analytics/speakers/${alice}`);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().code).toBe('NOT_FOUND');
      expect((await get(null, `/analytics/speakers/${alice}`)).statusCode).toBe(401);
    });

    it('follows a new transcript: the stored metrics are replaced with it', async () => {
      const replaced = await ctx().app.inject({
        method: 'PUT',
        url: `/videos/${videoId}/transcript`,
        headers: { ...owner.headers, 'content-type': 'text/vtt' },
        payload:
          'WEBVTT\n\n00:00:00.000 --> 00:00:30.000\n<v Alice>Only Alice speaks now, for thirty seconds.\n',
      });
      expect(replaced.statusCode, replaced.body).toBe(200);
      const body = (await get(owner, `/analytics/speakers/${bob}`)).json();
      expect(body).toMatchObject({ videoCount: 1, talkTimeSeconds: 15 });
    });
  });
});
