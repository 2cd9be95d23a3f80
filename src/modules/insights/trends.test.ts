import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { aiQuestions } from '../../db/schema/index.ts';
import { insertVideo } from '../transcripts/test-support.ts';

const DAY = 86_400_000;

type TopicTrend = {
  topic: { id: string; name: string };
  current: number;
  previous: number;
  changePercent: number | null;
  buckets: Array<{ start: string; count: number }>;
};

describe('GET /ai/insights/trends', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: '100', AI_METER_LOCAL: 'true' } });
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  const aliceTopics = new Set<string>();

  const get = (user: SignedUpUser | null, query = '') =>
    ctx().app.inject({
      method: 'GET',
      url: `/ai/insights/trends${query}`,
      headers: user ? user.headers : {},
    });

  /**
   * A meeting `daysAgo` before now (half days keep it clear of bucket and period edges whatever
   * milliseconds pass before the request) discussing `topics`, with `decisions` decisions.
   */
  const meeting = async (
    user: SignedUpUser,
    daysAgo: number,
    topics: string[],
    { decisions = 0, dated = 'recordedAt', isDeleted = false } = {},
  ) => {
    const date = new Date(ctx().clock.now().getTime() - daysAgo * DAY);
    const video = await insertVideo(ctx(), user, {
      title: `Meeting ${daysAgo} days ago`,
      isDeleted,
      ...(dated === 'recordedAt' ? { recordedAt: date } : { createdAt: date }),
    });
    const { topicIds } = await insertKnowledge(ctx().database.db, video, {
      topics: topics.map((name) => ({ name })),
      items: Array.from({ length: decisions }, (_, index) => ({
        kind: 'decision' as const,
        text: `We decided thing ${index}.`,
      })),
    });
    if (user === alice) for (const id of topicIds) aliceTopics.add(id);
    return video;
  };

  const question = (user: SignedUpUser, daysAgo: number) =>
    ctx()
      .database.db.insert(aiQuestions)
      .values({
        organizationId: user.organizationId,
        userId: user.id,
        source: 'qa',
        question: 'What did we decide on pricing?',
        normalizedQuestion: 'decid price',
        answer: 'Nothing yet.',
        answered: false,
        confidence: 0,
        createdAt: new Date(ctx().clock.now().getTime() - daysAgo * DAY),
      });

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    await meeting(alice, 0.5, ['pricing', 'onboarding'], { decisions: 2 });
    await meeting(alice, 1.5, ['pricing']);
    // Dated by its upload when its recording date is unknown.
    await meeting(alice, 10.5, ['pricing', 'roadmap'], { decisions: 1, dated: 'createdAt' });
    await meeting(alice, 35.5, ['pricing', 'hiring'], { decisions: 1 });
    await meeting(alice, 40.5, ['pricing', 'roadmap']);
    await meeting(alice, 100.5, ['pricing']);
    // Deleted: neither its topics, its decisions nor itself count.
    await meeting(alice, 0.5, ['pricing', 'onboarding', 'secret'], { decisions: 4, isDeleted: true });
    await meeting(otto, 0.5, ['pricing', 'espionage'], { decisions: 1 });
    await question(alice, 0.5);
    await question(alice, 2.5);
    await question(alice, 40.5);
    await question(otto, 0.5);
  });

  it('counts meetings per topic in the last 30 days against the 30 before, with weekly buckets', async () => {
    const response = await get(alice);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.period).toBe('30d');
    expect(body.current).toStrictEqual({ start: isoDate, end: isoDate });
    const start = Date.parse(body.current.start);
    expect(Date.parse(body.current.end) - start).toBe(30 * DAY);
    expect(body.previous).toStrictEqual({
      start: new Date(start - 30 * DAY).toISOString(),
      end: body.current.start,
    });

    const summary = body.topics.map((trend: TopicTrend) => [
      trend.topic.name,
      trend.current,
      trend.previous,
      trend.changePercent,
    ]);
    // Most meetings first; among equals the new topic (no previous meetings) before the steady one.
    expect(summary).toStrictEqual([
      ['pricing', 3, 2, 50],
      ['onboarding', 1, 0, null],
      ['roadmap', 1, 1, 0],
      ['hiring', 0, 1, -100],
    ]);
    const pricing = body.topics[0];
    expect(aliceTopics.has(pricing.topic.id)).toBe(true);
    // Five weeks from the period's start, the last one two days long; 10.5 days ago is week 3, the rest the last.
    expect(pricing.buckets).toStrictEqual(
      [0, 1, 2, 3, 4].map((week) => ({
        start: new Date(start + week * 7 * DAY).toISOString(),
        count: [0, 0, 1, 0, 2][week],
      })),
    );
    for (const trend of body.topics as TopicTrend[]) {
      expect(trend.buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(trend.current);
    }

    expect(body.totals).toStrictEqual({
      videos: { current: 3, previous: 2, changePercent: 50 },
      questionsAsked: { current: 2, previous: 1, changePercent: 100 },
      decisions: { current: 3, previous: 1, changePercent: 200 },
    });
  });

  it('buckets a week by day and a quarter by week', async () => {
    const week = (await get(alice, '?period=7d')).json();
    expect(week.period).toBe('7d');
    expect(
      week.topics.map((trend: TopicTrend) => [
        trend.topic.name,
        trend.current,
        trend.previous,
        trend.changePercent,
      ]),
    ).toStrictEqual([
      ['pricing', 2, 1, 100],
      ['onboarding', 1, 0, null],
      ['roadmap', 0, 1, -100],
    ]);
    expect(week.topics[0].buckets.map((bucket: { count: number }) => bucket.count)).toStrictEqual([
      0, 0, 0, 0, 0, 1, 1,
    ]);
    expect(Date.parse(week.topics[0].buckets[1].start) - Date.parse(week.topics[0].buckets[0].start)).toBe(
      DAY,
    );
    expect(week.totals.videos).toStrictEqual({ current: 2, previous: 1, changePercent: 100 });

    const quarter = (await get(alice, '?period=90d')).json();
    const pricing = quarter.topics.find((trend: TopicTrend) => trend.topic.name === 'pricing');
    expect([pricing.current, pricing.previous, pricing.changePercent]).toStrictEqual([5, 1, 400]);
    expect(pricing.buckets).toHaveLength(13);
    expect(pricing.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0)).toBe(5);
  });

  it("never counts another organization's meetings or deleted ones", async () => {
    const mine = (await get(alice)).json();
    const names = mine.topics.map((trend: TopicTrend) => trend.topic.name);
    expect(names).not.toContain('espionage');
    expect(names).not.toContain('secret');
    expect(mine.topics.every((trend: TopicTrend) => aliceTopics.has(trend.topic.id))).toBe(true);

    const others = (await get(otto)).json();
    expect(others.topics.map((trend: TopicTrend) => [trend.topic.name, trend.current])).toStrictEqual([
      ['espionage', 1],
      ['pricing', 1],
    ]);
    expect(others.topics.some((trend: TopicTrend) => aliceTopics.has(trend.topic.id))).toBe(false);
    expect(others.totals).toStrictEqual({
      videos: { current: 1, previous: 0, changePercent: null },
      questionsAsked: { current: 1, previous: 0, changePercent: null },
      decisions: { current: 1, previous: 0, changePercent: null },
    });
  });

  it('charges one insights credit per call, and nothing for a refused one', async () => {
    const used = async () =>
      (await ctx().app.inject({ method: 'GET', url: '/ai/budget', headers: alice.headers })).json().used;
    const before = await used();
    expect((await get(alice, '?period=7d')).statusCode).toBe(200);
    expect(await used()).toBe(before + 1);
    expect((await get(alice, '?period=1y')).statusCode).toBe(400);
    expect(await used()).toBe(before + 1);
  });

  it('refuses an invalid query with 400, a foreign organization with 400, and anonymous callers with 401', async () => {
    const bad = await get(alice, '?period=365d&organizationId=nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(
      bad
        .json()
        .details.map((detail: { path: string }) => detail.path)
        .sort(),
    ).toStrictEqual(['querystring.organizationId', 'querystring.period']);
    const foreign = await get(alice, `?organizationId=${otto.organizationId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    expect((await get(null)).statusCode).toBe(401);
  });
});
