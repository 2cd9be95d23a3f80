import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { insertVideo, inTeam, type Team, team } from '../transcripts/test-support.ts';
import { NO_RECORDINGS_ANSWER } from './engine.ts';

const DAY = 86_400_000;
const gapId = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

describe('GET /ai/gaps', () => {
  const ctx = useTestApp({ env: { AI_METER_LOCAL: 'true' } });
  let crew: Team;
  let otto: SignedUpUser;
  const titles: Record<string, string> = {};

  const get = (user: SignedUpUser | null, url: string) =>
    ctx().app.inject({ method: 'GET', url, headers: user ? user.headers : {} });
  const gapsOf = async (user: SignedUpUser, query = '') => {
    const response = await get(user, `/ai/gaps?organizationId=${crew.organizationId}${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const meeting = async (title: string, daysAgo: number, fields: { isDeleted?: boolean } = {}) => {
    const recordedAt = new Date(ctx().clock.now().getTime() - daysAgo * DAY);
    const video = await insertVideo(ctx(), inTeam(crew, crew.owner), { title, recordedAt, ...fields });
    titles[video.id] = title;
    return video;
  };

  beforeAll(async () => {
    crew = await team(ctx());
    otto = await signUpUser(ctx().app, { name: 'Otto' });
    const pricing = { name: 'pricing', key: 'price', score: 0.2 };
    const { db } = ctx().database;
    await insertKnowledge(db, await meeting('Pricing sync 1', 20), {
      items: [
        { kind: 'question', text: 'Who owns the pricing page?', subject: 'own page price', answered: false },
        {
          kind: 'decision',
          text: 'We will rewrite the onboarding emails.',
          subject: 'email onboard rewrit',
          start: 60,
        },
        { kind: 'action_item', text: 'Dana drafts the FAQ.', subject: 'dana draft faq', owner: 'Dana' },
      ],
      topics: [pricing],
    });
    await insertKnowledge(db, await meeting('Pricing sync 2', 10), {
      items: [
        {
          kind: 'question',
          text: 'So who owns the pricing page?',
          subject: 'own page price',
          answered: false,
          speaker: 'Mia',
          start: 95.5,
          end: 98,
        },
        { kind: 'decision', text: 'We will launch the beta in March.', subject: 'beta launch march' },
        {
          kind: 'action_item',
          text: 'Carl prepares the beta launch.',
          subject: 'beta carl launch prepar',
          owner: 'Carl',
        },
      ],
      topics: [pricing],
    });
    await insertKnowledge(db, await meeting('Pricing sync 3', 5), { topics: [pricing] });
    await insertKnowledge(db, await meeting('Architecture review', 120), {
      items: [{ kind: 'decision', text: 'We will sunset the legacy API.', subject: 'api legaci sunset' }],
    });
    // A deleted meeting and another organization's never contribute.
    await insertKnowledge(db, await meeting('Deleted sync', 3, { isDeleted: true }), {
      items: [
        {
          kind: 'question',
          text: 'Is the secret project on track?',
          subject: 'project secret track',
          answered: false,
        },
        { kind: 'decision', text: 'We will hide the secret project.', subject: 'hide project secret' },
      ],
      // Were it counted, pricing would have come up in 4 meetings.
      topics: [pricing],
    });
    const ottoVideo = await insertVideo(ctx(), otto, { title: "Otto's sync", recordedAt: new Date() });
    await insertKnowledge(db, ottoVideo, {
      items: [
        { kind: 'question', text: 'Who owns the pricing page?', subject: 'own page price', answered: false },
      ],
    });
  });

  it('asks about something never discussed: answered false, and the question becomes a gap', async () => {
    const asked = await ctx().app.inject({
      method: 'POST',
      url: '/ai/qa',
      headers: crew.member.headers,
      payload: {
        question: 'What is the oxygen supply plan for the Mars colony?',
        organizationId: crew.organizationId,
      },
    });
    expect(asked.statusCode, asked.body).toBe(201);
    // The crew's videos have knowledge but no transcript: there is nothing to answer from, and it says so.
    expect(asked.json()).toMatchObject({ answered: false, answer: NO_RECORDINGS_ANSWER });
    const { data } = await gapsOf(crew.viewer, '&type=unanswered_question&minSeverity=low');
    expect(data).toStrictEqual([
      {
        id: gapId,
        type: 'unanswered_question',
        title: 'What is the oxygen supply plan for the Mars colony?',
        description: 'Asked 1 time by 1 person; nothing in the library answers it.',
        severity: 'low',
        occurrences: 1,
        evidence: [
          {
            text: 'What is the oxygen supply plan for the Mars colony?',
            videoId: null,
            videoTitle: null,
            start: null,
            end: null,
            speaker: null,
            at: isoDate,
          },
        ],
        firstSeenAt: isoDate,
        lastSeenAt: isoDate,
      },
    ]);
  });

  it('hides low-severity gaps unless asked for them', async () => {
    const body = await gapsOf(crew.owner);
    expect(body.data.map((gap: { severity: string }) => gap.severity)).toStrictEqual([
      'medium',
      'medium',
      'medium',
    ]);
    expect(body.pagination.total).toBe(3);
    expect((await gapsOf(crew.owner, '&minSeverity=high')).data).toStrictEqual([]);
    const invalid = await get(
      crew.owner,
      `/ai/gaps?organizationId=${crew.organizationId}&minSeverity=severe`,
    );
    expect(invalid.statusCode).toBe(400);
  });

  it('lists every signal of live meetings, most severe first, then most recent', async () => {
    const body = await gapsOf(crew.owner, '&minSeverity=low');
    expect(body.pagination).toStrictEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
    expect(
      body.data.map((gap: { type: string; severity: string; title: string }) => [
        gap.type,
        gap.severity,
        gap.title,
      ]),
    ).toStrictEqual([
      ['undocumented_topic', 'medium', 'Undocumented topic: pricing'],
      ['open_question', 'medium', 'So who owns the pricing page?'],
      ['decision_without_owner', 'medium', 'Decision with no owner: We will rewrite the onboarding emails.'],
      ['unanswered_question', 'low', 'What is the oxygen supply plan for the Mars colony?'],
      ['stale_decision', 'low', 'Stale decision: We will sunset the legacy API.'],
    ]);
    const [topic, open, unowned, , stale] = body.data;
    expect(topic).toMatchObject({
      id: gapId,
      description:
        'Came up in 3 meetings but was central to none (score below 0.5), and no decision or action item is about it.',
      occurrences: 3,
    });
    expect(topic.evidence.map((evidence: { videoTitle: string }) => evidence.videoTitle)).toStrictEqual([
      'Pricing sync 3',
      'Pricing sync 2',
      'Pricing sync 1',
    ]);
    expect(open).toStrictEqual({
      id: gapId,
      type: 'open_question',
      title: 'So who owns the pricing page?',
      description: expect.stringMatching(
        /^Raised in 2 meetings \(last on \d{4}-\d{2}-\d{2}\) and never answered, neither there nor in a later meeting\.$/,
      ),
      severity: 'medium',
      occurrences: 2,
      evidence: [
        {
          text: 'So who owns the pricing page?',
          videoId: expect.any(String),
          videoTitle: 'Pricing sync 2',
          start: 95.5,
          end: 98,
          speaker: 'Mia',
          at: isoDate,
        },
        expect.objectContaining({ videoTitle: 'Pricing sync 1', text: 'Who owns the pricing page?' }),
      ],
      firstSeenAt: open.evidence[1].at,
      lastSeenAt: open.evidence[0].at,
    });
    expect(titles[open.evidence[0].videoId]).toBe('Pricing sync 2');
    expect(unowned.evidence).toMatchObject([{ videoTitle: 'Pricing sync 1', start: 60 }]);
    expect(stale.description).toBe(
      'Decided 120 days ago in "Architecture review" and not discussed in any meeting since.',
    );
    // Nothing of the deleted meeting or of another organization.
    expect(JSON.stringify(body)).not.toMatch(/secret|Deleted sync|Otto/i);
    // Ids are stable across calls.
    expect(
      (await gapsOf(crew.viewer, '&minSeverity=low')).data.map((gap: { id: string }) => gap.id),
    ).toStrictEqual(body.data.map((gap: { id: string }) => gap.id));
  });

  it('filters by type and by days, and pages', async () => {
    const { data: open } = await gapsOf(crew.owner, '&type=open_question');
    expect(open.map((gap: { type: string }) => gap.type)).toStrictEqual(['open_question']);
    // Within a week only the question asked through QA; stale decisions are then those 90 to 97 days old.
    const { data: week } = await gapsOf(crew.owner, '&days=7&minSeverity=low');
    expect(week.map((gap: { type: string }) => gap.type)).toStrictEqual(['unanswered_question']);
    const page = await gapsOf(crew.owner, '&limit=2&page=2&minSeverity=low');
    expect(page.pagination).toStrictEqual({ page: 2, limit: 2, total: 5, totalPages: 3 });
    expect(page.data.map((gap: { type: string }) => gap.type)).toStrictEqual([
      'decision_without_owner',
      'unanswered_question',
    ]);
  });

  it("answers for the caller's default organization, never another's", async () => {
    const response = await get(otto, '/ai/gaps?minSeverity=low');
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject([
      {
        type: 'open_question',
        title: 'Who owns the pricing page?',
        evidence: [{ videoTitle: "Otto's sync" }],
      },
    ]);
  });

  it('charges no credits', async () => {
    const budget = await get(crew.owner, `/ai/budget?organizationId=${crew.organizationId}`);
    // The one question asked through QA, nothing for the gaps read since.
    expect(budget.json().used).toBe(1);
  });

  it('refuses invalid queries and foreign organizations with 400, anonymous callers with 401', async () => {
    for (const [query, path] of [
      ['days=0', 'querystring.days'],
      ['days=3651', 'querystring.days'],
      ['type=bogus', 'querystring.type'],
      ['limit=101', 'querystring.limit'],
      ['organizationId=nope', 'querystring.organizationId'],
    ]) {
      const response = await get(crew.owner, `/ai/gaps?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path }] });
    }
    const foreign = await get(otto, `/ai/gaps?organizationId=${crew.organizationId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    expect((await get(null, '/ai/gaps')).statusCode).toBe(401);
  });
});
