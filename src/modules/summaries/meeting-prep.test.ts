import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { insertVideo, unknownId } from '../transcripts/test-support.ts';
import { moveClockTo, ROADMAP, spendCredits, storePassages } from './test-support.ts';

const LAUNCH = 'We agreed the launch date stays on the fifteenth of May, no matter what.';

/** What was said in the series' occurrences (by number), arranged once and expected from it. */
const SAID = {
  launch: { sync: 6, kind: 'decision', text: LAUNCH, speaker: 'Alice', start: 19.5, end: 31 },
  announcement: {
    sync: 6,
    kind: 'action_item',
    text: 'Bob drafts the announcement.',
    speaker: 'Bob',
    start: 44,
    end: 55,
    owner: 'Bob',
    dueDate: '2026-11-18',
  },
  pricingPage: {
    sync: 6,
    kind: 'question',
    text: 'Who owns the pricing page?',
    speaker: 'Bob',
    start: 8,
    end: 19.5,
    answered: false,
  },
  flat: {
    sync: 5,
    kind: 'decision',
    text: 'Pricing stays flat for the first quarter.',
    speaker: 'Dana',
    start: 3,
    end: 9,
  },
  battery: {
    sync: 5,
    kind: 'action_item',
    text: 'Carol owns the battery investigation.',
    speaker: 'Alice',
    start: 20,
    end: 25,
    owner: 'Carol',
    dueDate: '2026-11-24',
  },
  deck: {
    sync: 5,
    kind: 'action_item',
    text: 'Someone updates the roadmap deck.',
    speaker: 'Dana',
    start: 30,
    end: 33,
    owner: null,
    dueDate: null,
  },
  discount: {
    sync: 5,
    kind: 'question',
    text: 'Is the discount approved?',
    speaker: 'Eve',
    start: 40,
    end: 42,
    answered: true,
  },
  hiring: {
    sync: 4,
    kind: 'action_item',
    text: 'Eve hires two engineers.',
    speaker: 'Eve',
    start: 5,
    end: 8,
    owner: 'Eve',
    dueDate: '2026-12-15',
  },
  old: { sync: 1, kind: 'decision', text: 'An old decision.', speaker: null, start: 0, end: 5 },
} as const;
type Key = keyof typeof SAID;
const TOPICS: Record<number, Array<{ name: string; mentions: number }>> = {
  6: [
    { name: 'launch date', mentions: 3 },
    { name: 'pricing', mentions: 2 },
  ],
  5: [{ name: 'pricing', mentions: 4 }],
  4: [{ name: 'hiring', mentions: 1 }],
  1: [{ name: 'pricing', mentions: 1 }],
};
/** Occurrence n is recorded on 2026-10-09 + 7(n − 1) days, at 10:00. */
const dateOf = (number: number) => new Date(Date.UTC(2026, 9, 9 + 7 * (number - 1), 10)).toISOString();

describe('POST /ai/summaries/meeting-prep', () => {
  const ctx = useTestApp({ env: { AI_MONTHLY_CREDITS: '30', AI_METER_LOCAL: 'true' } });
  let alice: SignedUpUser;
  let otto: SignedUpUser;
  let seriesId: string;
  let emptySeriesId: string;
  let ottoSeriesId: string;
  let ottoTopicId: string;
  let ottoVideoId: string;
  const sync: Record<number, string> = {};
  const topic: Record<string, string> = {};
  const item = {} as Record<Key, string>;

  const prep = (user: SignedUpUser | null, payload: object) =>
    ctx().app.inject({
      method: 'POST',
      url: '/ai/summaries/meeting-prep',
      headers: user ? user.headers : {},
      payload,
    });
  const budgetUsed = async (user: SignedUpUser) =>
    (await ctx().app.inject({ method: 'GET', url: '/ai/budget', headers: user.headers })).json().used;
  const createSeries = async (user: SignedUpUser, name: string) => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: '/series',
      headers: user.headers,
      payload: { organizationId: user.organizationId, name, cadence: 'weekly' },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id as string;
  };

  /** An item as the response shows it. */
  const shown = (key: Key) => {
    const { sync: number, kind, text, speaker, start, end } = SAID[key];
    const moment = {
      id: item[key],
      videoId: sync[number],
      videoTitle: `Sync #${number}`,
      date: dateOf(number),
    };
    const said = { ...moment, start, end, speaker, text };
    if (kind !== 'action_item') return said;
    const { owner, dueDate } = SAID[key] as { owner: string | null; dueDate: string | null };
    return { ...said, owner, dueDate };
  };
  const cited = (source: number, key: Key) => {
    const { sync: number, text, speaker, start, end } = SAID[key];
    return {
      source,
      videoId: sync[number],
      videoTitle: `Sync #${number}`,
      heldAt: dateOf(number),
      start,
      end,
      speaker,
      quote: text,
    };
  };

  beforeAll(async () => {
    moveClockTo(ctx(), '2026-11-20T12:00:00.000Z');
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    const db = ctx().database.db;
    seriesId = await createSeries(alice, 'Weekly product sync');
    emptySeriesId = await createSeries(alice, 'Empty series');
    ottoSeriesId = await createSeries(otto, "Otto's sync");

    // Six weekly occurrences, of which the oldest is beyond the latest five.
    for (let number = 1; number <= 6; number++) {
      const video = await insertVideo(ctx(), alice, {
        title: `Sync #${number}`,
        seriesId,
        recordedAt: new Date(dateOf(number)),
      });
      sync[number] = video.id;
      const keys = (Object.keys(SAID) as Key[]).filter((key) => SAID[key].sync === number);
      const summary = number === 6 ? [SAID.launch] : number === 5 ? [SAID.flat] : [];
      const stored = await insertKnowledge(db, video, {
        summary: summary.map(({ text, start, end, speaker }) => ({ text, start, end, speaker })),
        items: keys.map((key) => {
          const { sync: _number, ...fields } = SAID[key];
          return fields;
        }),
        topics: TOPICS[number] ?? [],
      });
      keys.forEach((key, position) => {
        item[key] = stored.itemIds[position] as string;
      });
      (TOPICS[number] ?? []).forEach((said, position) => {
        topic[said.name] = stored.topicIds[position] as string;
      });
      if (number === 6) await storePassages(ctx(), video, ROADMAP);
    }
    // A deleted occurrence, the newest, is never read.
    const deleted = await insertVideo(ctx(), alice, {
      title: 'Deleted sync',
      seriesId,
      recordedAt: new Date('2026-11-19T10:00:00.000Z'),
      isDeleted: true,
    });
    await storePassages(ctx(), deleted, ROADMAP);
    await insertKnowledge(db, deleted, {
      items: [{ kind: 'decision', text: 'A deleted decision.' }],
      topics: [{ name: 'pricing', mentions: 8 }],
    });

    const ottoVideo = await insertVideo(ctx(), otto, {
      title: "Otto's review",
      seriesId: ottoSeriesId,
      recordedAt: new Date('2026-11-12T10:00:00.000Z'),
    });
    ottoVideoId = ottoVideo.id;
    await storePassages(ctx(), ottoVideo, ROADMAP);
    ottoTopicId = (await insertKnowledge(db, ottoVideo, { topics: [{ name: 'pricing', mentions: 1 }] }))
      .topicIds[0] as string;
  });

  afterAll(() => ctx().clock.reset());

  it("briefs from a series' latest five live occurrences, with a suggested agenda, for 3 credits", async () => {
    const response = await prep(alice, { seriesId });
    expect(response.statusCode, response.body).toBe(201);
    const meeting = (number: number, summary: string | null) => ({
      id: sync[number],
      title: `Sync #${number}`,
      date: dateOf(number),
      summary,
    });
    const revisit = (key: Key, source: number) => ({
      title: `Revisit: ${SAID[key].text}`,
      reason: `Decided in "Sync #${SAID[key].sync}" on ${dateOf(SAID[key].sync).slice(0, 10)}: confirm it still holds [${source}].`,
      citations: [source],
    });
    expect(response.json()).toStrictEqual({
      organizationId: alice.organizationId,
      summary:
        'Based on 5 previous meetings of "Weekly product sync", the latest "Sync #6" on 2026-11-13. ' +
        '2 decisions, 4 action items (1 overdue) and 1 unanswered question. ' +
        'Most discussed: pricing, launch date and hiring.',
      previousMeetings: [
        meeting(6, LAUNCH),
        meeting(5, SAID.flat.text),
        meeting(4, null),
        meeting(3, null),
        meeting(2, null),
      ],
      decisions: [shown('flat'), shown('launch')],
      // Earliest due first, undated last; the answered question is not open.
      openActionItems: [shown('announcement'), shown('battery'), shown('hiring'), shown('deck')],
      openQuestions: [shown('pricingPage')],
      suggestedAgenda: [
        {
          title: 'Follow up: Bob drafts the announcement.',
          reason: 'Action item for Bob, overdue since 2026-11-18, from "Sync #6" [1].',
          citations: [1],
        },
        {
          title: 'Follow up: Carol owns the battery investigation.',
          reason: 'Action item for Carol, due 2026-11-24, from "Sync #5" [2].',
          citations: [2],
        },
        {
          title: 'Answer: Who owns the pricing page?',
          reason: 'Asked by Bob in "Sync #6" on 2026-11-13 and left unanswered [3].',
          citations: [3],
        },
        revisit('launch', 4),
        revisit('flat', 5),
        {
          title: 'Discuss: pricing',
          reason: 'Discussed in 2 of the 5 previous meetings (6 mentions).',
          citations: [],
        },
        {
          title: 'Discuss: launch date',
          reason: 'Discussed in 1 of the 5 previous meetings (3 mentions).',
          citations: [],
        },
      ],
      citations: [
        cited(1, 'announcement'),
        cited(2, 'battery'),
        cited(3, 'pricingPage'),
        cited(4, 'launch'),
        cited(5, 'flat'),
      ],
    });
    expect(await budgetUsed(alice)).toBe(3);
  });

  it("answers a query from the named videos' passages, citing the transcript", async () => {
    const response = await prep(alice, { videoIds: [sync[6]], query: 'When is the launch date?' });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body.previousMeetings.map((meeting: { id: string }) => meeting.id)).toEqual([sync[6]]);
    expect(body.citations[0]).toStrictEqual({
      source: 1,
      videoId: sync[6],
      videoTitle: 'Sync #6',
      heldAt: dateOf(6),
      start: 19.5,
      end: 31,
      speaker: 'Alice',
      quote: 'Understood. We agreed the launch date stays on the fifteenth of May, no matter what.',
    });
    expect(body.summary).toMatch(/On "When is the launch date\?": .*fifteenth of May.* \[1\]$/);
    // The stored decision is another moment than the engine's sentence: it gets its own number.
    expect(body.citations.map((citation: { source: number }) => citation.source)).toEqual([1, 2, 3, 4]);
    expect(await budgetUsed(alice)).toBe(6);
  });

  it('finds the previous meetings for a query alone, never a deleted or foreign one', async () => {
    const response = await prep(alice, { query: 'Who owns the battery investigation?' });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body.previousMeetings.map((meeting: { id: string }) => meeting.id)).toEqual([sync[6]]);
    expect(body.summary).toContain('On "Who owns the battery investigation?": ');
    expect(body.citations.every((citation: { videoId: string }) => citation.videoId === sync[6])).toBe(true);
    expect(body.decisions.map((decision: { text: string }) => decision.text)).toEqual([LAUNCH]);
    expect(await budgetUsed(alice)).toBe(9);
  });

  it("takes the topics' latest live meetings", async () => {
    const body = (
      await prep(alice, { topicIds: [topic.pricing], organizationId: alice.organizationId })
    ).json();
    // Pricing comes up in occurrences 6, 5 and 1 (and the deleted one).
    expect(body.previousMeetings.map((meeting: { id: string }) => meeting.id)).toEqual([
      sync[6],
      sync[5],
      sync[1],
    ]);
    expect(body.decisions.map((decision: { text: string }) => decision.text)).toEqual([
      'An old decision.',
      'Pricing stays flat for the first quarter.',
      LAUNCH,
    ]);
    expect(await budgetUsed(alice)).toBe(12);
  });

  it('says so, for free, when there is no previous meeting', async () => {
    const none = await prep(alice, { query: 'oxygen supply on the Mars colony' });
    expect(none.statusCode).toBe(201);
    expect(none.json()).toStrictEqual({
      organizationId: alice.organizationId,
      summary: 'No previous meetings found.',
      previousMeetings: [],
      decisions: [],
      openActionItems: [],
      openQuestions: [],
      suggestedAgenda: [],
      citations: [],
    });
    const empty = await prep(alice, { seriesId: emptySeriesId, query: 'launch date' });
    expect(empty.json().summary).toBe('No previous meetings of "Empty series" yet.');
    expect(await budgetUsed(alice)).toBe(12);
  });

  it('refuses requests that name nothing, or what is not of the organization, with 400', async () => {
    const cases: Array<[object, string, string]> = [
      [{}, 'body', 'must name a seriesId, videoIds, topicIds or a query'],
      [{ query: 'hm' }, 'body.query', 'must be at least 3 characters'],
      [{ topicIds: [] }, 'body.topicIds', 'must name at least one topic'],
      [{ seriesId: 'nope' }, 'body.seriesId', 'must be a UUID'],
      [{ seriesId: ottoSeriesId }, 'body.seriesId', 'is not a series of the organization'],
      [{ seriesId: unknownId }, 'body.seriesId', 'is not a series of the organization'],
      [{ topicIds: [ottoTopicId] }, 'body.topicIds', `are not topics of the organization: ${ottoTopicId}`],
      [{ videoIds: [ottoVideoId] }, 'body.videoIds', `are not videos of the organization: ${ottoVideoId}`],
    ];
    for (const [payload, path, message] of cases) {
      const response = await prep(alice, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({
        success: false,
        code: 'VALIDATION_ERROR',
        details: [{ path, message }],
      });
    }
    const foreign = await prep(alice, { query: 'launch', organizationId: otto.organizationId });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    expect(await budgetUsed(alice)).toBe(12);
  });

  it('refuses anonymous callers with 401 and spent budgets with 429', async () => {
    expect((await prep(null, { seriesId })).statusCode).toBe(401);
    await spendCredits(ctx(), otto.organizationId, 2);
    const refused = await prep(otto, { seriesId: ottoSeriesId });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ success: false, code: 'AI_BUDGET_EXCEEDED' });
    expect(await budgetUsed(otto)).toBe(28);
  });
});
