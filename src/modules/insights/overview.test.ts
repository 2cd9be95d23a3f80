import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { memberships, speakers, transcriptSegments } from '../../db/schema/index.ts';
import { rebuildDerived } from '../transcripts/service.ts';
import { insertVideo } from '../transcripts/test-support.ts';

const DAY = 86_400_000;
const LIMIT = 5;

type Trend = { topic: { name: string }; current: number; changePercent: number | null };

describe('GET /ai/insights', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: String(LIMIT), AI_METER_LOCAL: 'true' } });
  let alice: SignedUpUser;
  let bea: SignedUpUser;
  let otto: SignedUpUser;
  const ids: Record<string, string> = {};

  const overview = (user: SignedUpUser | null, query = '') =>
    ctx().app.inject({ method: 'GET', url: `/ai/insights${query}`, headers: user ? user.headers : {} });

  let segments = 0;
  /** One speaker's words in a meeting, as a transcript segment of theirs timed at 150 words a minute. */
  const said = async (organizationId: string, videoId: string, name: string, words: number) => {
    const { db } = ctx().database;
    const [speaker] = await db
      .insert(speakers)
      .values({ organizationId, name, normalizedName: name.toLowerCase() })
      .onConflictDoUpdate({ target: [speakers.organizationId, speakers.normalizedName], set: { name } })
      .returning();
    segments += 1;
    await db.insert(transcriptSegments).values({
      videoId,
      organizationId,
      index: segments,
      startSeconds: segments * 1000,
      endSeconds: segments * 1000 + words * 0.4,
      speakerId: speaker?.id,
      speakerLabel: name,
      text: Array.from({ length: words }, () => 'word').join(' '),
    });
    // As storing a transcript does: its passages and its speakers' talk time, which highlights read.
    await db.transaction((tx) => rebuildDerived(tx, { id: videoId, organizationId }));
  };

  const meeting = async (
    author: { id: string; organizationId: string },
    title: string,
    daysAgo: number,
    knowledge: { topics?: Array<[string, number]>; decisions?: Array<[string, number]> } = {},
    fields: { viewCount?: number; isDeleted?: boolean; channelId?: string } = {},
  ) => {
    const video = await insertVideo(ctx(), author, {
      title,
      recordedAt: new Date(ctx().clock.now().getTime() - daysAgo * DAY),
      ...fields,
    });
    await insertKnowledge(ctx().database.db, video, {
      topics: (knowledge.topics ?? []).map(([name, firstStart]) => ({ name, firstStart })),
      items: (knowledge.decisions ?? []).map(([text, start]) => ({ kind: 'decision' as const, text, start })),
    });
    ids[title] = video.id;
    return video.id;
  };

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    bea = await signUpUser(ctx().app, { name: 'Bea' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    await ctx()
      .database.db.insert(memberships)
      .values({ organizationId: alice.organizationId, userId: bea.id, role: 'member' });
    const org = alice.organizationId;

    const launch = await meeting(
      alice,
      'Launch review',
      1.5,
      {
        topics: [
          ['launch', 30],
          ['pricing', 40],
        ],
        decisions: [
          ['Price it at twenty dollars.', 50],
          ['Ship on May 15.', 10],
        ],
      },
      { viewCount: 7 },
    );
    await said(org, launch, 'Alice', 10);
    await said(org, launch, 'Bob', 4);
    await meeting(
      alice,
      'Kickoff',
      5.5,
      {
        topics: [
          ['launch', 5],
          ['alpha', 0],
          ['beta', 0],
          ['gamma', 0],
          ['delta', 0],
        ],
        decisions: [['Hire two engineers.', 5]],
      },
      { viewCount: 3 },
    );
    await meeting(alice, 'Retro', 20.5, { decisions: [['Keep the retro short.', 0]] });
    const old = await meeting(
      alice,
      'Old pricing',
      40.5,
      { topics: [['pricing', 0]], decisions: [['Too old.', 0]] },
      { viewCount: 12 },
    );
    await said(org, old, 'Bob', 100);
    const deleted = await meeting(
      alice,
      'Deleted',
      1.5,
      { topics: [['secret', 0]], decisions: [['Deleted decision.', 0]] },
      { viewCount: 50, isDeleted: true },
    );
    await said(org, deleted, 'Bob', 100);

    // Six unwatched videos by Bea in a channel Alice follows, long before the period.
    const channel = await ctx().app.inject({
      method: 'POST',
      url: '/channels',
      headers: alice.headers,
      payload: { organizationId: org, name: 'design' },
    });
    const channelId = channel.json().id;
    await ctx().app.inject({ method: 'POST', url: `/channels/${channelId}/follow`, headers: alice.headers });
    for (let n = 1; n <= 6; n++)
      await meeting({ id: bea.id, organizationId: org }, `Design ${n}`, 200 + n, {}, { channelId });

    const spy = await meeting(
      otto,
      'Spy meeting',
      1.5,
      { topics: [['espionage', 0]], decisions: [['Burn the files.', 0]] },
      { viewCount: 99 },
    );
    await said(otto.organizationId, spy, 'Otto', 500);
  });

  it("summarises the period: top trends, the caller's top recommendations, and highlights", async () => {
    const response = await overview(alice);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toStrictEqual(['highlights', 'period', 'recommendations', 'trends']);
    expect(body.period).toBe('30d');
    // The trends computation's top five: launch (2 meetings), then the new topics before steady pricing.
    expect(
      body.trends.map((trend: Trend) => [trend.topic.name, trend.current, trend.changePercent]),
    ).toStrictEqual([
      ['launch', 2, null],
      ['alpha', 1, null],
      ['beta', 1, null],
      ['delta', 1, null],
      ['gamma', 1, null],
    ]);
    expect(body.trends[0].buckets).toHaveLength(5);
    expect(body.recommendations.map((item: { video: { id: string } }) => item.video.id)).toStrictEqual(
      [1, 2, 3, 4, 5].map((n) => ids[`Design ${n}`]),
    );
    expect(body.recommendations[0]).toMatchObject({
      type: 'video',
      reason: 'New in #design, a channel you follow',
      score: 0.5,
    });

    expect(body.highlights).toStrictEqual([
      {
        type: 'decision',
        text: 'Ship on May 15.',
        videoId: ids['Launch review'],
        videoTitle: 'Launch review',
        start: 10,
      },
      {
        type: 'decision',
        text: 'Price it at twenty dollars.',
        videoId: ids['Launch review'],
        videoTitle: 'Launch review',
        start: 50,
      },
      {
        type: 'decision',
        text: 'Hire two engineers.',
        videoId: ids.Kickoff,
        videoTitle: 'Kickoff',
        start: 5,
      },
      {
        type: 'most_watched',
        text: '“Launch review” was the most watched meeting of the period: 7 views',
        videoId: ids['Launch review'],
        videoTitle: 'Launch review',
        value: 7,
      },
      {
        type: 'new_topic',
        text: 'New topic: launch, discussed in 2 meetings',
        videoId: ids.Kickoff,
        videoTitle: 'Kickoff',
        start: 5,
        value: 2,
      },
      {
        type: 'new_topic',
        text: 'New topic: alpha, discussed in 1 meeting',
        videoId: ids.Kickoff,
        videoTitle: 'Kickoff',
        start: 0,
        value: 1,
      },
      {
        type: 'new_topic',
        text: 'New topic: beta, discussed in 1 meeting',
        videoId: ids.Kickoff,
        videoTitle: 'Kickoff',
        start: 0,
        value: 1,
      },
      { type: 'active_speaker', text: 'Alice spoke the most: 4 s in 1 meeting', value: 4 },
    ]);
  });

  it('follows the period: a week sees only the latest meeting', async () => {
    const body = (await overview(alice, '?period=7d')).json();
    expect(body.period).toBe('7d');
    expect(body.trends[0].buckets).toHaveLength(7);
    expect(body.highlights.filter((item: { type: string }) => item.type === 'decision')).toHaveLength(3);
    // Pricing was discussed 40 days ago: not new; neither is anything before the week.
    expect(
      body.highlights
        .filter((item: { type: string }) => item.type === 'new_topic')
        .map((item: { text: string }) => item.text),
    ).toStrictEqual([
      'New topic: launch, discussed in 2 meetings',
      'New topic: alpha, discussed in 1 meeting',
      'New topic: beta, discussed in 1 meeting',
    ]);
  });

  it('refuses invalid queries with 400, foreign organizations with 403, anonymous callers with 401', async () => {
    const bad = await overview(alice, '?period=week');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.map((detail: { path: string }) => detail.path)).toStrictEqual([
      'querystring.period',
    ]);
    const foreign = await overview(alice, `?organizationId=${otto.organizationId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    expect((await overview(null)).statusCode).toBe(401);
  });

  it("keeps each organization's insights to itself, and answers 429 once its credits are spent", async () => {
    const first = (await overview(otto)).json();
    expect(first.trends.map((trend: Trend) => trend.topic.name)).toStrictEqual(['espionage']);
    expect(first.recommendations).toStrictEqual([]);
    expect(
      first.highlights.map((item: { type: string; text: string }) => [item.type, item.text]),
    ).toStrictEqual([
      ['decision', 'Burn the files.'],
      ['most_watched', '“Spy meeting” was the most watched meeting of the period: 99 views'],
      ['new_topic', 'New topic: espionage, discussed in 1 meeting'],
      ['active_speaker', 'Otto spoke the most: 3 min in 1 meeting'],
    ]);
    for (let call = 2; call <= LIMIT; call++) expect((await overview(otto)).statusCode).toBe(200);
    for (const url of ['/ai/insights', '/ai/insights/trends', '/ai/insights/recommendations']) {
      const refused = await ctx().app.inject({ method: 'GET', url, headers: otto.headers });
      expect(refused.statusCode, url).toBe(429);
      expect(refused.json()).toMatchObject({ success: false, code: 'AI_BUDGET_EXCEEDED' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Alice's organization has its own budget.
    expect((await overview(alice, '?period=90d')).statusCode).toBe(200);
  });
});
