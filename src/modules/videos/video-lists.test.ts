import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { videos } from '../../db/schema/index.ts';
import { errorBody, type Team, team, useMailingTestApp } from '../organizations/test-support.ts';
import {
  errorPaths,
  expectListedVideo,
  libraryOf,
  listed,
  makeVideo,
  type VideoBody,
} from './test-support.ts';

describe('GET /videos', () => {
  const ctx = useMailingTestApp();
  let crew: Team;
  let library: Awaited<ReturnType<typeof libraryOf>>;
  /** In creation order: Charlie (member, in the library, public), Alpha (admin), Bravo (member). */
  let made: VideoBody[];
  let foreign: VideoBody;

  beforeAll(async () => {
    crew = await team(ctx());
    library = await libraryOf(ctx(), crew.organizationId);
    made = [
      await makeVideo(ctx(), crew.member, crew.organizationId, {
        title: 'Charlie',
        isPublic: true,
        ...library,
      }),
      await makeVideo(ctx(), crew.admin, crew.organizationId, { title: 'Alpha' }),
      await makeVideo(ctx(), crew.member, crew.organizationId, { title: 'Bravo' }),
    ];
    foreign = await makeVideo(ctx(), crew.outsider, crew.outsider.organizationId, { title: 'Theirs' });
    // Views, to sort by.
    for (const [index, count] of [
      [0, 5],
      [1, 9],
      [2, 1],
    ] as const) {
      await ctx()
        .database.db.update(videos)
        .set({ viewCount: count })
        .where(eq(videos.id, made[index]?.id as string));
    }
  });

  const list = (user: SignedUpUser, query = '') =>
    ctx().app.inject({ method: 'GET', url: `/videos${query}`, headers: user.headers });
  const titles = (body: { data: VideoBody[] }) => body.data.map((video) => video.title);

  it("lists the caller's organizations' videos, newest first, each a Video without its transcript", async () => {
    const response = await list(crew.viewer);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'pagination']);
    expect(titles(body)).toEqual(['Bravo', 'Alpha', 'Charlie']);
    expect(body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
    for (const video of body.data) expectListedVideo(video, { organizationId: crew.organizationId });
    expect(body.data[2]).toEqual(listed({ ...(made[0] as VideoBody), viewCount: 5 }));
  });

  it('leaves long transcripts out of the list unless asked for them', async () => {
    const transcript = Array.from(
      { length: 2_000 },
      (_, at) => `Ana: Point ${at} of the quarterly plan.`,
    ).join('\n');
    const long = await Promise.all(
      Array.from({ length: 20 }, (_, at) =>
        makeVideo(ctx(), crew.member, crew.organizationId, { title: `Long ${at}`, transcript }),
      ),
    );
    const page = await list(crew.member, '?limit=20');
    expect(page.rawPayload.length).toBeLessThan(50_000);
    const item = page.json().data.find((video: { id: string }) => video.id === long[0]?.id);
    expect(item).toMatchObject({ hasTranscript: true });
    expect(item).not.toHaveProperty('transcript');
    const full = await list(crew.member, '?limit=20&include=transcript');
    const whole = full.json().data.find((video: { id: string }) => video.id === long[0]?.id);
    expect(whole).toEqual({ ...listed(long[0] as VideoBody), transcript });
    expect(full.rawPayload.length).toBeGreaterThan(20 * transcript.length);
    expect((await list(crew.member, '?include=everything')).statusCode).toBe(400);
    for (const video of long)
      await ctx().app.inject({
        method: 'DELETE',
        url: `/videos/${video.id}?permanent=true`,
        headers: crew.member.headers,
      });
  });

  it('covers every organization of the caller unless one is named', async () => {
    const joined = await list(crew.outsider);
    expect(titles(joined.json())).toEqual(['Theirs']);
    const named = await list(crew.outsider, `?organizationId=${crew.outsider.organizationId}`);
    expect(titles(named.json())).toEqual(['Theirs']);
    expect(named.json().data[0]).toEqual(listed(foreign));
  });

  it('answers 403 for an organization the caller is not in', async () => {
    const response = await list(crew.outsider, `?organizationId=${crew.organizationId}`);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual(errorBody('NOT_A_MEMBER', 'You are not a member of this organization'));
  });

  it.each([
    ['-createdAt', ['Bravo', 'Alpha', 'Charlie']],
    ['createdAt', ['Charlie', 'Alpha', 'Bravo']],
    ['title', ['Alpha', 'Bravo', 'Charlie']],
    ['-viewCount', ['Alpha', 'Charlie', 'Bravo']],
  ])('sorts by %s', async (sort, expected) => {
    expect(titles((await list(crew.member, `?sort=${sort}`)).json())).toEqual(expected);
  });

  it('filters by channel, collection, series, author and visibility', async () => {
    const cases: Array<[string, string[]]> = [
      [`channelId=${library.channelId}`, ['Charlie']],
      [`collectionId=${library.collectionId}`, ['Charlie']],
      [`seriesId=${library.seriesId}`, ['Charlie']],
      [`authorId=${crew.member.id}`, ['Bravo', 'Charlie']],
      [`authorId=${crew.admin.id}`, ['Alpha']],
      ['isPublic=true', ['Charlie']],
      ['isPublic=false', ['Bravo', 'Alpha']],
      [`authorId=${crew.outsider.id}`, []],
    ];
    for (const [query, expected] of cases) {
      const response = await list(crew.viewer, `?${query}`);
      expect(response.statusCode, query).toBe(200);
      expect(titles(response.json()), query).toEqual(expected);
      expect(response.json().pagination.total, query).toBe(expected.length);
    }
  });

  it('pages in SQL', async () => {
    const first = (await list(crew.member, '?limit=2')).json();
    expect(titles(first)).toEqual(['Bravo', 'Alpha']);
    expect(first.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    const second = (await list(crew.member, '?limit=2&page=2')).json();
    expect(titles(second)).toEqual(['Charlie']);
    const beyond = (await list(crew.member, '?limit=2&page=3')).json();
    expect(beyond).toEqual({ data: [], pagination: { page: 3, limit: 2, total: 3, totalPages: 2 } });
  });

  it('refuses bad filters, sorts and pages (400 with every path)', async () => {
    const response = await list(
      crew.member,
      '?sort=views&isPublic=maybe&channelId=x&organizationId=1&authorId=&page=0&limit=101',
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
    expect(errorPaths(response.json())).toEqual([
      'querystring.authorId',
      'querystring.channelId',
      'querystring.isPublic',
      'querystring.limit',
      'querystring.organizationId',
      'querystring.page',
      'querystring.sort',
    ]);
  });

  it('answers 401 without valid credentials', async () => {
    const none = await ctx().app.inject({ method: 'GET', url: '/videos' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
    const invalid = await ctx().app.inject({
      method: 'GET',
      url: '/videos?sort=bogus',
      headers: { authorization: 'Bearer nope' },
    });
    expect(invalid.statusCode).toBe(401);
  });
});
