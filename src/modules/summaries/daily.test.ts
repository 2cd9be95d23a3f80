import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { insertVideo } from '../transcripts/test-support.ts';
import { moveClockTo, ROADMAP, spendCredits, storePassages } from './test-support.ts';

describe('GET /ai/summaries/daily', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: '20', AI_METER_LOCAL: 'true' } });
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  const video: Record<string, string> = {};
  const item: Record<string, string> = {};
  const topic: Record<string, string> = {};

  const daily = (user: SignedUpUser | null, query = '') =>
    ctx().app.inject({
      method: 'GET',
      url: `/ai/summaries/daily${query}`,
      headers: user ? user.headers : {},
    });
  const budgetUsed = async (user: SignedUpUser) =>
    (await ctx().app.inject({ method: 'GET', url: '/ai/budget', headers: user.headers })).json().used;

  beforeAll(async () => {
    // "Today" is 2026-11-20 (UTC) for the whole file.
    moveClockTo(ctx(), '2026-11-20T12:00:00.000Z');
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    const db = ctx().database.db;

    const sync = await insertVideo(ctx(), alice, {
      title: 'Quarterly roadmap review',
      durationSeconds: 1800,
      recordedAt: new Date('2026-11-20T09:00:00.000Z'),
    });
    video.sync = sync.id;
    await storePassages(ctx(), sync, ROADMAP);
    const syncKnowledge = await insertKnowledge(db, sync, {
      summary: [
        {
          text: 'We agreed the launch date stays on the fifteenth of May, no matter what.',
          start: 19.5,
          end: 31,
          speaker: 'Alice',
        },
        { text: 'Carol owns the battery investigation.', start: 55, end: 65, speaker: 'Alice' },
      ],
      items: [
        {
          kind: 'decision',
          text: 'We agreed the launch date stays on the fifteenth of May.',
          speaker: 'Alice',
          start: 19.5,
          end: 31,
        },
        {
          kind: 'action_item',
          text: 'Carol owns the battery investigation.',
          speaker: 'Alice',
          start: 55,
          end: 65,
          owner: 'Carol',
          dueDate: '2026-11-27',
        },
        {
          kind: 'question',
          text: 'Who writes the announcement?',
          speaker: 'Bob',
          start: 44,
          end: 50,
          answered: false,
        },
        {
          kind: 'question',
          text: 'Is the budget approved?',
          speaker: 'Bob',
          start: 40,
          end: 44,
          answered: true,
        },
      ],
      topics: [
        { name: 'launch date', mentions: 3, firstStart: 19.5 },
        { name: 'battery', mentions: 2, firstStart: 31 },
      ],
    });
    [item.launchDecision, item.battery, item.announcement] = syncKnowledge.itemIds as [
      string,
      string,
      string,
    ];
    [topic.launch, topic.battery] = syncKnowledge.topicIds as [string, string];

    const critique = await insertVideo(ctx(), alice, {
      title: 'Design critique',
      durationSeconds: 1200,
      recordedAt: new Date('2026-11-20T15:00:00.000Z'),
    });
    video.critique = critique.id;
    const critiqueKnowledge = await insertKnowledge(db, critique, {
      summary: [
        {
          text: 'The onboarding checklist ships without the video tour.',
          start: 5,
          end: 12,
          speaker: 'Dana',
        },
      ],
      items: [
        {
          kind: 'decision',
          text: 'The checklist ships without the tour.',
          speaker: 'Dana',
          start: 5,
          end: 12,
        },
      ],
      topics: [{ name: 'launch date', mentions: 1, firstStart: 100 }],
    });
    [item.checklist] = critiqueKnowledge.itemIds as [string];

    // Added late that day, never recorded: its date is when it was added. No knowledge yet.
    const added = await insertVideo(ctx(), alice, {
      title: 'Late upload',
      durationSeconds: null,
      createdAt: new Date('2026-11-20T23:30:00.000Z'),
    });
    video.added = added.id;

    // Other days, a deleted meeting of the day and another organization's meeting of the day.
    const before = await insertVideo(ctx(), alice, { recordedAt: new Date('2026-11-19T23:59:59.000Z') });
    const after = await insertVideo(ctx(), alice, { recordedAt: new Date('2026-11-21T00:00:00.000Z') });
    const deleted = await insertVideo(ctx(), alice, {
      title: 'Deleted meeting',
      recordedAt: new Date('2026-11-20T11:00:00.000Z'),
      isDeleted: true,
    });
    const foreign = await insertVideo(ctx(), otto, {
      title: "Otto's meeting",
      recordedAt: new Date('2026-11-20T10:00:00.000Z'),
    });
    for (const other of [before, after, deleted, foreign]) {
      await insertKnowledge(db, other, {
        summary: [{ text: 'Not part of the day.', start: 0, end: 2, speaker: 'Zed' }],
        items: [{ kind: 'decision', text: 'A decision of another day or place.' }],
        topics: [{ name: 'elsewhere', mentions: 9 }],
      });
    }
  });

  afterAll(() => ctx().clock.reset());

  it("summarizes the day's live meetings from their knowledge, and charges 2 credits", async () => {
    const response = await daily(alice, '?date=2026-11-20');
    expect(response.statusCode, response.body).toBe(200);
    const moment = (videoId: string, videoTitle: string, date: string) => ({ videoId, videoTitle, date });
    const sync = moment(video.sync as string, 'Quarterly roadmap review', '2026-11-20T09:00:00.000Z');
    expect(response.json()).toStrictEqual({
      date: '2026-11-20',
      organizationId: alice.organizationId,
      summary:
        '3 meetings on 2026-11-20 (50 min): "Quarterly roadmap review", "Design critique" and "Late upload". ' +
        '2 decisions, 1 action item and 1 open question. Most discussed: launch date and battery. ' +
        'The knowledge of 1 of them is not extracted yet.',
      videos: [
        {
          id: video.sync,
          title: 'Quarterly roadmap review',
          date: '2026-11-20T09:00:00.000Z',
          durationSeconds: 1800,
          knowledgeStatus: 'ready',
          summary:
            'We agreed the launch date stays on the fifteenth of May, no matter what. Carol owns the battery investigation.',
        },
        {
          id: video.critique,
          title: 'Design critique',
          date: '2026-11-20T15:00:00.000Z',
          durationSeconds: 1200,
          knowledgeStatus: 'ready',
          summary: 'The onboarding checklist ships without the video tour.',
        },
        {
          id: video.added,
          title: 'Late upload',
          date: '2026-11-20T23:30:00.000Z',
          durationSeconds: null,
          knowledgeStatus: null,
          summary: null,
        },
      ],
      decisions: [
        {
          id: item.launchDecision,
          ...sync,
          start: 19.5,
          end: 31,
          speaker: 'Alice',
          text: 'We agreed the launch date stays on the fifteenth of May.',
        },
        {
          id: item.checklist,
          ...moment(video.critique as string, 'Design critique', '2026-11-20T15:00:00.000Z'),
          start: 5,
          end: 12,
          speaker: 'Dana',
          text: 'The checklist ships without the tour.',
        },
      ],
      actionItems: [
        {
          id: item.battery,
          ...sync,
          start: 55,
          end: 65,
          speaker: 'Alice',
          text: 'Carol owns the battery investigation.',
          owner: 'Carol',
          dueDate: '2026-11-27',
        },
      ],
      openQuestions: [
        {
          id: item.announcement,
          ...sync,
          start: 44,
          end: 50,
          speaker: 'Bob',
          text: 'Who writes the announcement?',
        },
      ],
      topics: [
        { id: topic.launch, name: 'launch date', videoCount: 2, mentions: 4 },
        { id: topic.battery, name: 'battery', videoCount: 1, mentions: 2 },
      ],
      stats: {
        videos: 3,
        totalDurationSeconds: 3000,
        decisions: 2,
        actionItems: 1,
        openQuestions: 1,
        // Alice, Bob and Carol speak in the roadmap review's transcript.
        speakers: 3,
      },
    });
    expect(await budgetUsed(alice)).toBe(2);
  });

  it('defaults to today (UTC) and answers for any day, in the organization asked about', async () => {
    const today = await daily(alice);
    expect(today.statusCode).toBe(200);
    expect(today.json().date).toBe('2026-11-20');
    expect(today.json().videos.map((v: { id: string }) => v.id)).toEqual([
      video.sync,
      video.critique,
      video.added,
    ]);

    const ottos = (await daily(otto, `?date=2026-11-20&organizationId=${otto.organizationId}`)).json();
    expect(ottos.videos.map((v: { title: string }) => v.title)).toEqual(["Otto's meeting"]);
    expect(ottos.decisions.map((d: { text: string }) => d.text)).toEqual([
      'A decision of another day or place.',
    ]);
    expect(await budgetUsed(alice)).toBe(4);
  });

  it('answers an empty or future day honestly, for free', async () => {
    for (const date of ['2026-11-18', '2027-01-01']) {
      const response = await daily(alice, `?date=${date}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({
        date,
        organizationId: alice.organizationId,
        summary: `No meetings recorded on ${date}.`,
        videos: [],
        decisions: [],
        actionItems: [],
        openQuestions: [],
        topics: [],
        stats: {
          videos: 0,
          totalDurationSeconds: 0,
          decisions: 0,
          actionItems: 0,
          openQuestions: 0,
          speakers: 0,
        },
      });
    }
    expect(await budgetUsed(alice)).toBe(4);
  });

  it('refuses invalid dates and foreign organizations with 400, anonymous callers with 401', async () => {
    for (const date of ['2026-02-30', '20-11-2026', 'today', '2026-11-20T00:00:00Z']) {
      const response = await daily(alice, `?date=${date}`);
      expect(response.statusCode, date).toBe(400);
      expect(response.json().details).toEqual([
        { path: 'querystring.date', message: 'must be a date YYYY-MM-DD' },
      ]);
    }
    const foreign = await daily(alice, `?organizationId=${otto.organizationId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    expect((await daily(null)).statusCode).toBe(401);
    expect(await budgetUsed(alice)).toBe(4);
  });

  it('refuses with 429 when the month is spent, unless the day is empty', async () => {
    const carol = await signUpUser(ctx().app, { name: 'Carol' });
    await insertVideo(ctx(), carol, { recordedAt: new Date('2026-11-20T08:00:00.000Z') });
    await spendCredits(ctx(), carol.organizationId, 1);
    const refused = await daily(carol, '?date=2026-11-20');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ success: false, code: 'AI_BUDGET_EXCEEDED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await daily(carol, '?date=2026-11-19')).statusCode).toBe(200);
    expect(await budgetUsed(carol)).toBe(19);
  });
});
