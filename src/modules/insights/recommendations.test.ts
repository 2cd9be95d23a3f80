import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { aiQuestions, memberships, speakers } from '../../db/schema/index.ts';
import { storeSegments } from '../transcripts/service.ts';
import { insertVideo, inTeam, type Team, team } from '../transcripts/test-support.ts';

type Recommendation = {
  type: string;
  reason: string;
  score: number;
  video?: { id: string };
  collection?: { id: string };
  gap?: { text: string };
};

/** What a recommendation points at, to compare lists at a glance. */
const target = (item: Recommendation) => item.video?.id ?? item.collection?.id ?? item.gap?.text;

describe('GET /ai/insights/recommendations', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: '100' } });
  let t: Team;
  let max: SignedUpUser;
  let otto: SignedUpUser;
  const ids: Record<string, string> = {};

  const request = (user: SignedUpUser, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    ctx().app.inject({ method, url, headers: user.headers, ...(payload ? { payload } : {}) });
  const ok = async (response: Promise<{ statusCode: number; body: string; json(): { id: string } }>) => {
    const done = await response;
    expect(done.statusCode, done.body).toBeLessThan(300);
    return done.json();
  };
  /** In the team's organization (members' default organization is their personal one) unless told. */
  const recommendations = (user: SignedUpUser | null, query = '') =>
    ctx().app.inject({
      method: 'GET',
      url: `/ai/insights/recommendations${query || `?organizationId=${t.organizationId}`}`,
      headers: user ? user.headers : {},
    });

  /** A video of the team made by Olga, with its topics (`[name, key, score]`) and questions. */
  const video = async (
    title: string,
    fields: { channelId?: string; authorId?: string; isDeleted?: boolean } = {},
    knowledge: {
      topics?: Array<[string, string, number]>;
      questions?: Array<{ text: string; subject: string; answered?: boolean; speaker?: string }>;
    } = {},
  ) => {
    const row = await insertVideo(ctx(), inTeam(t, t.owner), { title, ...fields });
    await insertKnowledge(ctx().database.db, row, {
      topics: (knowledge.topics ?? []).map(([name, key, score]) => ({ name, key, score })),
      items: (knowledge.questions ?? []).map(({ answered = false, speaker = 'Olga', ...item }) => ({
        kind: 'question' as const,
        answered,
        speaker,
        ...item,
      })),
    });
    ids[title] = row.id;
    return row.id;
  };

  beforeAll(async () => {
    t = await team(ctx());
    max = t.member;
    otto = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    const { db } = ctx().database;

    const design = await ok(
      request(t.owner, 'POST', '/channels', { organizationId: t.organizationId, name: 'design' }),
    );
    await ok(request(max, 'POST', `/channels/${design.id}/follow`));

    await video('New in design', { channelId: design.id });
    await video('Design and pricing', { channelId: design.id }, { topics: [['pricing', 'price', 1]] });
    await video('Pricing deep dive', {}, { topics: [['pricing', 'price', 0.8]] });
    await video('Onboarding checklist', {}, { topics: [['onboarding', 'onboard', 0.6]] });
    // Watched, made by Max, or deleted: never recommended, followed channel or not.
    const seen = await video('Seen design review', { channelId: design.id });
    await video("Max's own design talk", { channelId: design.id, authorId: max.id });
    await video('Deleted design review', { channelId: design.id, isDeleted: true });
    await ok(request(max, 'POST', `/videos/${seen}/views`, {}));

    // Max watched three meetings about pricing; one left a question about it open.
    for (const title of ['Pricing 1', 'Pricing 2', 'Pricing 3']) {
      const id = await video(
        title,
        {},
        {
          topics: [['pricing', 'price', 1]],
          questions:
            title === 'Pricing 1'
              ? [
                  { text: 'What is the enterprise price?', subject: 'enterpris price' },
                  { text: 'Is the price final?', subject: 'final price', answered: true },
                ]
              : [],
        },
      );
      await ok(request(max, 'POST', `/videos/${id}/views`, {}));
    }
    await video(
      'Deleted pricing sync',
      { isDeleted: true },
      { topics: [['pricing', 'price', 1]], questions: [{ text: 'Who sets prices?', subject: 'price set' }] },
    );

    // Max spoke in a hiring meeting (his speaker is linked to his account).
    const standup = await video('Hiring standup', {}, { topics: [['hiring', 'hire', 1]] });
    await db
      .insert(speakers)
      .values({ organizationId: t.organizationId, name: 'Max', normalizedName: 'max', userId: max.id });
    // Stored as a transcript is: with the talk time per speaker that "spoke in" reads.
    await db.transaction((tx) =>
      storeSegments(tx, { id: standup, organizationId: t.organizationId }, [
        { index: 0, start: 0, end: 4, speaker: 'Max', text: 'We should hire two engineers.' },
      ]),
    );
    // A later hiring meeting: Olga's open question is for Max; his own is not.
    await video(
      'Hiring plan',
      {},
      {
        topics: [['hiring', 'hire', 1]],
        questions: [
          { text: 'Who interviews the candidates?', subject: 'candid interview' },
          { text: 'Do we hire juniors?', subject: 'hire junior', speaker: 'max ' },
        ],
      },
    );

    // Max asked about onboarding.
    await db.insert(aiQuestions).values({
      organizationId: t.organizationId,
      userId: max.id,
      source: 'qa',
      question: 'How does onboarding work?',
      normalizedQuestion: 'onboard work',
      answer: 'Nothing yet.',
      answered: false,
      confidence: 0,
    });

    // A playlist of five live videos (a sixth deleted) that Max is two videos into, and one he finished.
    const path = await ok(
      request(t.owner, 'POST', '/collections', {
        organizationId: t.organizationId,
        name: 'Onboarding path',
        type: 'playlist',
      }),
    );
    for (let n = 1; n <= 6; n++) {
      const id = await video(`Path ${n}`);
      await ok(request(t.owner, 'POST', `/collections/${path.id}/videos`, { videoId: id }));
    }
    await ok(request(t.owner, 'DELETE', `/videos/${ids['Path 6']}`));
    await ok(request(max, 'POST', `/collections/${path.id}/progress`, { completed: true }));
    await ok(request(max, 'POST', `/collections/${path.id}/progress`, { completed: true }));
    await ok(request(max, 'POST', `/collections/${path.id}/progress`, { position: 42 }));
    ids['Onboarding path'] = path.id;
    const done = await ok(
      request(t.owner, 'POST', '/collections', {
        organizationId: t.organizationId,
        name: 'Done',
        type: 'playlist',
      }),
    );
    await ok(request(t.owner, 'POST', `/collections/${done.id}/videos`, { videoId: await video('Done 1') }));
    await ok(request(max, 'POST', `/collections/${done.id}/progress`, { completed: true }));

    // Max also belongs to Otto's organization, which follows its own channel and has its own pricing.
    await db
      .insert(memberships)
      .values({ organizationId: otto.organizationId, userId: max.id, role: 'member' });
    const news = await ok(
      request(otto, 'POST', '/channels', { organizationId: otto.organizationId, name: 'news' }),
    );
    await ok(request(max, 'POST', `/channels/${news.id}/follow`));
    const ottoNews = await insertVideo(ctx(), otto, { title: "Otto's news", channelId: news.id });
    const ottoPricing = await insertVideo(ctx(), otto, { title: "Otto's pricing" });
    await insertKnowledge(db, ottoPricing, { topics: [{ name: 'pricing', key: 'price' }] });
    ids["Otto's news"] = ottoNews.id;
  });

  it('recommends videos, playlists and open questions for the caller, best first, each with its reason', async () => {
    const response = await recommendations(max);
    expect(response.statusCode, response.body).toBe(200);
    const data: Recommendation[] = response.json().data;
    expect(data.map((item) => [item.type, target(item), item.score, item.reason])).toStrictEqual([
      [
        'video',
        ids['Design and pricing'],
        1,
        'New in #design, a channel you follow; discusses pricing, which you watched 3 videos about',
      ],
      [
        'gap',
        'What is the enterprise price?',
        0.8,
        'Asked in “Pricing 1”; you have watched 3 videos about pricing',
      ],
      ['playlist', ids['Onboarding path'], 0.66, 'You are 2 of 5 videos into “Onboarding path”'],
      ['video', ids['New in design'], 0.5, 'New in #design, a channel you follow'],
      ['video', ids['Pricing deep dive'], 0.4, 'Discusses pricing, which you watched 3 videos about'],
      [
        'gap',
        'Who interviews the candidates?',
        0.267,
        'Asked in “Hiring plan”; you have spoken about hiring',
      ],
      ['video', ids['Hiring plan'], 0.167, 'Discusses hiring, which you spoke about in 1 meeting'],
      ['video', ids['Onboarding checklist'], 0.1, 'Discusses onboarding, which you asked about'],
    ]);
    expect(data[0]?.video).toStrictEqual({
      id: ids['Design and pricing'],
      title: 'Design and pricing',
      thumbnailUrl: null,
      durationSeconds: 1200,
    });
    expect(data[1]?.gap).toStrictEqual({
      text: 'What is the enterprise price?',
      videoId: ids['Pricing 1'],
      videoTitle: 'Pricing 1',
      start: 0,
    });
    expect(data[2]?.collection).toStrictEqual({
      id: ids['Onboarding path'],
      name: 'Onboarding path',
      lastVideoId: ids['Path 3'],
      lastPosition: 42,
      completed: 2,
      total: 5,
    });
  });

  it('stops recommending a video once the caller watched it, and keeps to the limit', async () => {
    await ok(request(max, 'POST', `/videos/${ids['New in design']}/views`, {}));
    const data: Recommendation[] = (await recommendations(max)).json().data;
    expect(data.map(target)).not.toContain(ids['New in design']);
    const top = (await recommendations(max, `?organizationId=${t.organizationId}&limit=2`)).json().data;
    expect(top.map(target)).toStrictEqual([ids['Design and pricing'], 'What is the enterprise price?']);
  });

  it("is personal: another member's recommendations follow their own channels and topics", async () => {
    const data: Recommendation[] = (await recommendations(t.otherMember)).json().data;
    // Mia follows nothing, watched nothing, spoke nowhere: only nothing to go on.
    expect(data).toStrictEqual([]);
  });

  it("never shows another organization's content, and keeps interests within each organization", async () => {
    const team: Recommendation[] = (await recommendations(max)).json().data;
    expect(team.map(target)).not.toContain(ids["Otto's news"]);
    // Without organizationId: Max's default organization, his personal one, where there is nothing.
    const personal = await recommendations(max, '?limit=10');
    expect(personal.statusCode).toBe(200);
    expect(personal.json().data).toStrictEqual([]);
    const response = await recommendations(max, `?organizationId=${otto.organizationId}`);
    expect(response.statusCode).toBe(200);
    // Max's pricing interest is the team's topic: Otto's pricing meeting is not recommended for it.
    expect(response.json().data.map((item: Recommendation) => [target(item), item.reason])).toStrictEqual([
      [ids["Otto's news"], 'New in #news, a channel you follow'],
    ]);
  });

  it('refuses an invalid limit with 400, a foreign organization with 403, and anonymous callers with 401', async () => {
    for (const limit of ['0', '51', 'ten']) {
      const response = await recommendations(max, `?limit=${limit}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().details.map((detail: { path: string }) => detail.path)).toStrictEqual([
        'querystring.limit',
      ]);
    }
    const foreign = await recommendations(t.otherMember, `?organizationId=${otto.organizationId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    expect((await recommendations(null)).statusCode).toBe(401);
  });
});
