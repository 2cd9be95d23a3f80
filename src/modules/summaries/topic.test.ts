import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { insertVideo, unknownId } from '../transcripts/test-support.ts';
import { moveClockTo, ROADMAP, spendCredits, storePassages } from './test-support.ts';

const REMOTE = { name: 'remote control', key: 'remot control', keywords: ['battery', 'prototype', 'demo'] };
const BATTERY_LIFE = 'The battery life of the remote control prototype is still too short for the demo.';

type Citation = {
  source: number;
  videoId: string;
  quote: string;
  start: number;
  end: number;
  speaker: string;
};

describe('GET /ai/summaries/topic/{id}', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: '20', AI_METER_LOCAL: 'true' } });
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let topicId: string;
  let review: { id: string; organizationId: string };
  let hardware: { id: string; organizationId: string };
  let orphanTopicId: string;
  let budgetTopicId: string;
  let chipTopicId: string;
  let ottoTopicId: string;
  const decisionIds: Record<string, string> = {};

  const summary = (user: SignedUpUser | null, id: string) =>
    ctx().app.inject({ method: 'GET', url: `/ai/summaries/topic/${id}`, headers: user ? user.headers : {} });
  const budgetUsed = async (user: SignedUpUser) =>
    (await ctx().app.inject({ method: 'GET', url: '/ai/budget', headers: user.headers })).json().used;

  beforeAll(async () => {
    moveClockTo(ctx(), '2026-11-20T12:00:00.000Z');
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    const db = ctx().database.db;

    review = await insertVideo(ctx(), alice, {
      title: 'Quarterly roadmap review',
      recordedAt: new Date('2026-11-02T10:00:00.000Z'),
    });
    await storePassages(ctx(), review, ROADMAP);
    const reviewKnowledge = await insertKnowledge(db, review, {
      summary: [
        {
          text: 'We agreed the launch date stays on the fifteenth of May, no matter what.',
          start: 19.5,
          end: 31,
          speaker: 'Alice',
        },
        { text: BATTERY_LIFE, start: 31, end: 44, speaker: 'Carol' },
      ],
      items: [
        // About the launch, not the topic.
        {
          kind: 'decision',
          text: 'We agreed the launch date stays on the fifteenth of May.',
          subject: 'agre date fifteenth launch may stay',
          start: 19.5,
          end: 31,
          speaker: 'Alice',
        },
        // Says the topic's name.
        {
          kind: 'decision',
          text: 'The Remote Control demo keeps the old battery.',
          subject: 'batteri control demo keep old remot',
          start: 50,
          end: 54,
          speaker: 'Bob',
        },
      ],
      topics: [
        { ...REMOTE, mentions: 3, firstStart: 31 },
        { name: 'budget', mentions: 1, firstStart: 44 },
      ],
    });
    budgetTopicId = reviewKnowledge.topicIds[1] as string;
    [decisionIds.launch, decisionIds.demo] = reviewKnowledge.itemIds as [string, string];
    topicId = reviewKnowledge.topicIds[0] as string;

    hardware = await insertVideo(ctx(), alice, {
      title: 'Hardware sync',
      recordedAt: new Date('2026-11-10T10:00:00.000Z'),
    });
    const hardwareKnowledge = await insertKnowledge(db, hardware, {
      summary: [
        { text: 'Remote controls move to the new chip in December.', start: 12, end: 18, speaker: 'Dana' },
      ],
      items: [
        // About the topic by its stemmed words only.
        {
          kind: 'decision',
          text: 'Remotes get a new control chip.',
          subject: 'chip control get new remot',
          start: 12,
          end: 18,
          speaker: 'Dana',
        },
      ],
      topics: [
        { ...REMOTE, mentions: 2, firstStart: 12 },
        { name: 'chip', mentions: 2, firstStart: 12 },
      ],
    });
    [decisionIds.chip] = hardwareKnowledge.itemIds as [string];
    chipTopicId = hardwareKnowledge.topicIds[1] as string;

    // A deleted meeting about the topic shows nowhere.
    const deleted = await insertVideo(ctx(), alice, {
      title: 'Deleted remote control review',
      recordedAt: new Date('2026-11-15T10:00:00.000Z'),
      isDeleted: true,
    });
    const deletedKnowledge = await insertKnowledge(db, deleted, {
      summary: [{ text: 'The remote control is cancelled.', start: 1, end: 3, speaker: 'Eve' }],
      items: [
        {
          kind: 'decision',
          text: 'The remote control is cancelled.',
          subject: 'cancel control remot',
          speaker: 'Eve',
        },
      ],
      topics: [
        { ...REMOTE, mentions: 9 },
        { name: 'cancellation', mentions: 1 },
      ],
    });
    // A topic only deleted meetings discuss.
    orphanTopicId = deletedKnowledge.topicIds[1] as string;
    const ottoVideo = await insertVideo(ctx(), otto, {
      title: "Otto's review",
      recordedAt: new Date('2026-11-03T10:00:00.000Z'),
    });
    await storePassages(ctx(), ottoVideo, ROADMAP);
    ottoTopicId = (await insertKnowledge(db, ottoVideo, { topics: [{ ...REMOTE, mentions: 4 }] }))
      .topicIds[0] as string;
  });

  afterAll(() => ctx().clock.reset());

  it('summarizes what the live meetings said about the topic, every claim cited, for 2 credits', async () => {
    const response = await summary(alice, topicId);
    expect(response.statusCode, response.body).toBe(200);
    const roadmap = { videoId: review.id, videoTitle: 'Quarterly roadmap review' };
    const sync = { videoId: hardware.id, videoTitle: 'Hardware sync' };
    expect(response.json()).toStrictEqual({
      topic: { id: topicId, name: 'remote control', keywords: ['battery', 'prototype', 'demo'] },
      // The engine's answer, from the transcript passages; then the latest decision.
      summary:
        '"remote control" came up in 2 meetings from 2026-11-02 to 2026-11-10 (5 mentions). ' +
        // Reported speech: "is" said then is "was" now.
        'Carol said the battery life of the remote control prototype was still too short for the demo. [1] ' +
        '2 decisions about it; the latest (2026-11-10): Remotes get a new control chip. [3]',
      keyPoints: [
        { text: BATTERY_LIFE, source: 1 },
        { text: 'Remote controls move to the new chip in December.', source: 2 },
      ],
      decisions: [
        {
          id: decisionIds.demo,
          ...roadmap,
          date: '2026-11-02T10:00:00.000Z',
          start: 50,
          end: 54,
          speaker: 'Bob',
          text: 'The Remote Control demo keeps the old battery.',
        },
        {
          id: decisionIds.chip,
          ...sync,
          date: '2026-11-10T10:00:00.000Z',
          start: 12,
          end: 18,
          speaker: 'Dana',
          text: 'Remotes get a new control chip.',
        },
      ],
      timeline: [
        {
          videoId: review.id,
          title: 'Quarterly roadmap review',
          date: '2026-11-02T10:00:00.000Z',
          mentions: 3,
          firstStart: 31,
        },
        {
          videoId: hardware.id,
          title: 'Hardware sync',
          date: '2026-11-10T10:00:00.000Z',
          mentions: 2,
          firstStart: 12,
        },
      ],
      citations: [
        // The engine's citation and the stored summary's sentence are one moment: cited once.
        {
          source: 1,
          ...roadmap,
          heldAt: '2026-11-02T10:00:00.000Z',
          start: 31,
          end: 44,
          speaker: 'Carol',
          quote: BATTERY_LIFE,
        },
        {
          source: 2,
          ...sync,
          heldAt: '2026-11-10T10:00:00.000Z',
          start: 12,
          end: 18,
          speaker: 'Dana',
          quote: 'Remote controls move to the new chip in December.',
        },
        {
          source: 3,
          ...sync,
          heldAt: '2026-11-10T10:00:00.000Z',
          start: 12,
          end: 18,
          speaker: 'Dana',
          quote: 'Remotes get a new control chip.',
        },
      ],
    });
    expect(await budgetUsed(alice)).toBe(2);
  });

  it("takes key points from the engine's citations when no stored summary sentence is about the topic", async () => {
    const body = (await summary(alice, budgetTopicId)).json();
    const approved = 'Marketing wants a draft of the announcement by Friday; the budget was approved.';
    expect(body.keyPoints).toStrictEqual([{ text: approved, source: 1 }]);
    expect(body.summary).toBe(
      `"budget" came up in 1 meeting on 2026-11-02 (1 mention). Bob said: ${approved} [1]`,
    );
    expect(body.citations).toStrictEqual([
      {
        source: 1,
        videoId: review.id,
        videoTitle: 'Quarterly roadmap review',
        heldAt: '2026-11-02T10:00:00.000Z',
        start: 44,
        end: 55,
        speaker: 'Bob',
        quote: approved,
      },
    ]);
    expect(body.decisions).toEqual([]);
    expect(await budgetUsed(alice)).toBe(4);
  });

  it('composes from stored knowledge alone when the engine finds nothing', async () => {
    // The hardware sync has no transcript: nothing to retrieve.
    const body = (await summary(alice, chipTopicId)).json();
    expect(body.summary).toBe(
      '"chip" came up in 1 meeting on 2026-11-10 (2 mentions). Remote controls move to the new chip in December. [1] ' +
        '1 decision about it; the latest (2026-11-10): Remotes get a new control chip. [2]',
    );
    expect(body.keyPoints).toStrictEqual([
      { text: 'Remote controls move to the new chip in December.', source: 1 },
    ]);
    expect(body.citations.map((citation: Citation) => [citation.source, citation.quote])).toEqual([
      [1, 'Remote controls move to the new chip in December.'],
      [2, 'Remotes get a new control chip.'],
    ]);
    expect(await budgetUsed(alice)).toBe(6);
  });

  it("answers 404 for unknown ids, another organization's topics and topics of deleted meetings only", async () => {
    for (const id of [unknownId, ottoTopicId, orphanTopicId, 'not-a-uuid']) {
      const response = await summary(alice, id);
      expect(response.statusCode, id).toBe(404);
      expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
    expect((await summary(alice, ottoTopicId)).json().error).toBe('Topic not found');
    // Otto's own summary of the same meeting cites only his copy.
    const ottos = (await summary(otto, ottoTopicId)).json();
    expect(ottos.citations.length).toBeGreaterThan(0);
    expect(ottos.citations.every((citation: Citation) => citation.videoId !== review.id)).toBe(true);
    expect(ottos.timeline.map((meeting: { title: string }) => meeting.title)).toEqual(["Otto's review"]);
    expect(await budgetUsed(alice)).toBe(6);
  });

  it('refuses anonymous callers with 401 and spent budgets with 429', async () => {
    expect((await summary(null, topicId)).statusCode).toBe(401);
    await spendCredits(ctx(), otto.organizationId, 1);
    const refused = await summary(otto, ottoTopicId);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ success: false, code: 'AI_BUDGET_EXCEEDED' });
    expect(await budgetUsed(otto)).toBe(19 + 2);
  });
});
