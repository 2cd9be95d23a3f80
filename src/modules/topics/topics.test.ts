import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { insertVideo, type Team, team } from '../transcripts/test-support.ts';

describe('GET /topics', () => {
  const ctx = useTestApp();
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let crew: Team;
  const ids: Record<string, string> = {};

  const list = (user: SignedUpUser | null, query = '') =>
    ctx().app.inject({ method: 'GET', url: `/topics${query}`, headers: user ? user.headers : {} });

  const meeting = async (
    user: { id: string; organizationId: string },
    recordedAt: string,
    topics: Array<{ name: string; mentions: number; keywords?: string[] }>,
    fields: { isDeleted?: boolean } = {},
  ) => {
    const video = await insertVideo(ctx(), user, { recordedAt: new Date(recordedAt), ...fields });
    const { topicIds } = await insertKnowledge(ctx().database.db, video, { topics });
    topics.forEach((topic, position) => {
      ids[`${user.organizationId}:${topic.name}`] = topicIds[position] as string;
    });
    return video;
  };

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    crew = await team(ctx());
    await meeting(alice, '2026-11-02T10:00:00.000Z', [
      { name: 'Pricing', mentions: 4, keywords: ['plan', 'discount'] },
      { name: 'Launch date', mentions: 2 },
    ]);
    await meeting(alice, '2026-11-10T09:00:00.000Z', [
      { name: 'Pricing', mentions: 2 },
      { name: 'Hiring', mentions: 5, keywords: ['engineer'] },
    ]);
    await meeting(alice, '2026-11-15T14:00:00.000Z', [{ name: 'Launch date', mentions: 3 }]);
    // Deleted meetings count for nothing; a topic only they discuss is not listed.
    await meeting(
      alice,
      '2026-11-20T14:00:00.000Z',
      [
        { name: 'Pricing', mentions: 10 },
        { name: 'Office move', mentions: 7 },
      ],
      { isDeleted: true },
    );
    await meeting(otto, '2026-11-12T10:00:00.000Z', [{ name: 'Pricing', mentions: 9 }]);
    await meeting({ id: crew.owner.id, organizationId: crew.organizationId }, '2026-11-05T10:00:00.000Z', [
      { name: 'Roadmap', mentions: 1 },
    ]);
  });

  const pricing = () => ({
    id: ids[`${alice.organizationId}:Pricing`],
    name: 'Pricing',
    keywords: ['plan', 'discount'],
    videoCount: 2,
    mentions: 6,
    firstDiscussedAt: '2026-11-02T10:00:00.000Z',
    lastDiscussedAt: '2026-11-10T09:00:00.000Z',
  });
  const launchDate = () => ({
    id: ids[`${alice.organizationId}:Launch date`],
    name: 'Launch date',
    keywords: [],
    videoCount: 2,
    mentions: 5,
    firstDiscussedAt: '2026-11-02T10:00:00.000Z',
    lastDiscussedAt: '2026-11-15T14:00:00.000Z',
  });
  const hiring = () => ({
    id: ids[`${alice.organizationId}:Hiring`],
    name: 'Hiring',
    keywords: ['engineer'],
    videoCount: 1,
    mentions: 5,
    firstDiscussedAt: '2026-11-10T09:00:00.000Z',
    lastDiscussedAt: '2026-11-10T09:00:00.000Z',
  });

  it("lists the default organization's topics, most discussed first, over live meetings only", async () => {
    const response = await list(alice);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toStrictEqual({
      data: [pricing(), launchDate(), hiring()],
      pagination: { page: 1, limit: 20, total: 3, totalPages: 1 },
    });
  });

  it('sorts by name or by the latest meeting, and pages', async () => {
    const names = async (query: string) =>
      (await list(alice, query)).json().data.map((topic: { name: string }) => topic.name);
    expect(await names('?sort=name')).toEqual(['Hiring', 'Launch date', 'Pricing']);
    // Pricing and Hiring were last discussed on the same day: by name.
    expect(await names('?sort=-lastDiscussedAt')).toEqual(['Launch date', 'Hiring', 'Pricing']);
    const second = await list(alice, '?limit=2&page=2');
    expect(second.json()).toStrictEqual({
      data: [hiring()],
      pagination: { page: 2, limit: 2, total: 3, totalPages: 2 },
    });
  });

  it('filters by a part of the name, any case', async () => {
    const prefix = await list(alice, '?q=PRIC');
    expect(prefix.json()).toStrictEqual({
      data: [pricing()],
      pagination: { page: 1, limit: 20, total: 1, totalPages: 1 },
    });
    const inner = (await list(alice, '?q=in&sort=name')).json();
    expect(inner.data.map((topic: { name: string }) => topic.name)).toEqual(['Hiring', 'Pricing']);
    expect(inner.pagination.total).toBe(2);
    expect((await list(alice, '?q=office')).json().data).toEqual([]);
    // LIKE wildcards are plain text.
    expect((await list(alice, '?q=%25')).json().data).toEqual([]);
  });

  it('shows each organization only its own topics, to any member, and costs no credits', async () => {
    const ottos = (await list(otto)).json();
    expect(ottos.data).toStrictEqual([
      {
        id: ids[`${otto.organizationId}:Pricing`],
        name: 'Pricing',
        keywords: [],
        videoCount: 1,
        mentions: 9,
        firstDiscussedAt: '2026-11-12T10:00:00.000Z',
        lastDiscussedAt: '2026-11-12T10:00:00.000Z',
      },
    ]);
    expect(ids[`${otto.organizationId}:Pricing`]).not.toBe(ids[`${alice.organizationId}:Pricing`]);
    const viewer = await list(crew.viewer, `?organizationId=${crew.organizationId}`);
    expect(viewer.statusCode).toBe(200);
    expect(viewer.json().data.map((topic: { name: string }) => topic.name)).toEqual(['Roadmap']);
    const budget = await ctx().app.inject({ method: 'GET', url: '/ai/budget', headers: alice.headers });
    expect(budget.json().used).toBe(0);
  });

  it('refuses an organization the caller does not belong to with 403 and invalid queries with 400', async () => {
    const foreign = await list(alice, `?organizationId=${otto.organizationId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    for (const [query, path] of [
      ['?sort=mentions', 'querystring.sort'],
      ['?limit=0', 'querystring.limit'],
      ['?q=', 'querystring.q'],
      ['?organizationId=nope', 'querystring.organizationId'],
    ]) {
      const response = await list(alice, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().details.map((detail: { path: string }) => detail.path)).toEqual([path]);
    }
  });

  it('refuses anonymous callers with 401', async () => {
    const response = await list(null);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });
});
